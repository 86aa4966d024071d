/** The network: sync progress, this node, connected peers (live). */
import {
  type BlockSync,
  batch,
  type Connections,
  failed,
  isNotAvailable,
  type NodeStatus,
  type NodeVersion,
  type Outcome,
  type ProtocolVersion,
  resultOf,
} from '../chain-data';
import { label } from '../chain-format';
import { type Child, facts, h, heading, mono, notice, replace, section, table } from '../dom';
import { view } from '../page-frame';
import { syncPercent, syncText, type ViewContext } from './view-context';

export async function networkView(context: ViewContext): Promise<void> {
  const syncPart = h('div');
  const nodePart = h('div');
  const peersPart = h('div');
  replace(
    view,
    heading('Network'),
    section('Sync progress', 'sync-heading', syncPart),
    section('This node', 'node-heading', nodePart),
    section('Peers', 'peers-heading', peersPart),
  );
  async function refresh(): Promise<void> {
    const [sync, node, connections, version, protocol] = await batch([
      { method: 'blockSyncing' },
      { method: 'nodeStatus' },
      { method: 'getConnection' },
      { method: 'getNodeVersion' },
      { method: 'getProtocolVersion' },
    ]);
    if (context.stale()) return;
    showSync(syncPart, sync);
    replace(nodePart, facts(nodeFacts(node, version, protocol)));
    showPeers(peersPart, connections);
  }
  await refresh();
  context.onChainChange(refresh);
}

function showSync(part: HTMLElement, sync: Outcome<BlockSync>): void {
  if (isNotAvailable(sync)) {
    replace(part, notice('Sync progress is not available on this node yet.'));
    return;
  }
  const data = resultOf(sync);
  const percent = syncPercent(data);
  replace(
    part,
    h('label', { for: 'sync-progress' }, syncText(sync)),
    ' ',
    h('progress', { id: 'sync-progress', max: 100, value: percent }, `${percent}%`),
    facts([
      ['Started at block', String(data.startingBlock)],
      ['Current block', String(data.currentBlock)],
      ['Highest known block', String(data.highestBlock)],
    ]),
  );
}

function nodeFacts(
  node: Outcome<NodeStatus>,
  version: Outcome<NodeVersion>,
  protocol: Outcome<ProtocolVersion>,
): Array<[Child, Child]> {
  const shown: Array<[Child, Child]> = [];
  if (!failed(version)) shown.push(['Version', version.version]);
  if (!failed(protocol)) {
    const { netprotocol } = protocol;
    shown.push(['Network protocol', `${netprotocol.ver}.${netprotocol.ver_a}`]);
  }
  if (isNotAvailable(node)) {
    shown.push(['Status', 'not available on this node yet']);
  } else if (!failed(node)) {
    const data = node as unknown as Record<string, unknown>;
    for (const key of ['status_s', 'ready_s', 'port', 'blocks']) {
      if (data[key] !== undefined) shown.push([label(key), String(data[key])]);
    }
    const stats = node.netstats as Partial<NodeStatus['netstats']> | undefined;
    if (stats)
      shown.push(['Connections', `${stats.active ?? 0} active, ${stats.total ?? 0} total`]);
  }
  return shown;
}

function showPeers(part: HTMLElement, connections: Outcome<Connections>): void {
  if (isNotAvailable(connections)) {
    replace(part, notice('Peer information is not available on this node yet.'));
    return;
  }
  const list = resultOf(connections).connection ?? [];
  replace(
    part,
    list.length === 0
      ? notice('Not connected to any peer.')
      : table(
          'Connected peers',
          ['Address', 'Direction', 'Connected', 'Sent', 'Received', 'Version'],
          list.map((peer) => [
            mono(`${peer.ip}:${peer.port}`),
            peer.server ? 'inbound' : 'outbound',
            `${peer.secs} s`,
            `${peer.sent} bytes`,
            `${peer.recv} bytes`,
            `${peer.appver} (protocol ${peer.netver}.${peer.netver_a})`,
          ]),
        ),
  );
}
