/**
 * Participation: the tree of a TOP node (TOP -> MIDDLE -> BOTTOM, each with its state), and the TOP
 * nodes that joined lately.
 *
 * No method lists the trees or names the TOP wallet of a node code. The tree is read from a TOP
 * wallet down: getNodePart (code, state), nodeStepMDList (its MIDDLE nodes), nodeStepBTList (the
 * BOTTOM nodes of each MIDDLE), getNodePart of each (state, miner). For a MIDDLE or BOTTOM wallet
 * (or a miner wallet) the page finds its TOP by the node code's nodeStep1 operation, scanning
 * blocks back; the TOP list is the nodeStep1 operations of the latest blocks.
 */
import {
  batch,
  failed,
  type NodePart,
  type OperationObject,
  type Outcome,
  operationsOfBlocks,
  type ParticipationEntry,
  resultOf,
  rpc,
} from '../chain-data';
import {
  blockLink,
  coins,
  nodeCodeOf,
  nodeStateText,
  OPTYPE_TOP_JOIN,
  roleOf,
  walletLink,
  when,
} from '../chain-format';
import { type Child, facts, h, heading, link, mono, notice, replace, section, table } from '../dom';
import { showProblem, view } from '../page-frame';
import { loadProducers, type ProducerScan, producersTable } from './producers-view';
import type { ViewContext } from './view-context';

/** Blocks scanned per request when looking for nodeStep1 operations. */
const SCAN_BLOCKS = 100;

interface TreeNode {
  wallet: string;
  /** getNodePart of the wallet, or why it has none. */
  part: Outcome<NodePart>;
  /** The list entry its parent's list gave (stake and state text); none for the TOP. */
  entry?: ParticipationEntry;
  children: TreeNode[];
}

function partOf(outcome: Outcome<{ result: NodePart }>): Outcome<NodePart> {
  return failed(outcome) ? outcome : outcome.result;
}

/** The tree under TOP wallet `top` of node code `code`, in three requests. */
async function loadTree(code: string, top: string): Promise<TreeNode> {
  const [topPart, middleList] = await batch([
    { method: 'getNodePart', params: { wallet: top } },
    { method: 'nodeStepMDList', params: { code, wallet: top } },
  ]);
  const middles = resultOf(middleList);
  const middleOutcomes = await batch(
    middles.flatMap((entry) => [
      { method: 'getNodePart', params: { wallet: entry.wallet } } as const,
      { method: 'nodeStepBTList', params: { code, main: top, wallet: entry.wallet } } as const,
    ]),
  );
  const bottomsOf = middles.map((_, i) => {
    const list = middleOutcomes[2 * i + 1] as Outcome<ParticipationEntry[]>;
    return failed(list) ? [] : list;
  });
  const bottomParts = await batch(
    bottomsOf
      .flat()
      .map((entry) => ({ method: 'getNodePart', params: { wallet: entry.wallet } }) as const),
  );
  let nextBottom = 0;
  const middleNodes: TreeNode[] = middles.map((entry, i) => ({
    wallet: entry.wallet,
    entry,
    part: partOf(middleOutcomes[2 * i] as Outcome<{ result: NodePart }>),
    children: bottomsOf[i]!.map((bottom) => ({
      wallet: bottom.wallet,
      entry: bottom,
      part: partOf(bottomParts[nextBottom++] as Outcome<{ result: NodePart }>),
      children: [],
    })),
  }));
  return { wallet: top, part: partOf(topPart), children: middleNodes };
}

/** The node of `wallet` in the tree. */
function findNode(node: TreeNode, wallet: string): TreeNode | undefined {
  if (node.wallet === wallet) return node;
  for (const child of node.children) {
    const found = findNode(child, wallet);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** One node of the tree: role, wallet, state, stake; its sub-nodes nested below. */
function treeItem(node: TreeNode, shown: string): HTMLElement {
  const part = node.part;
  const role = failed(part) ? undefined : roleOf(part.state);
  const label = role ?? (node.entry === undefined ? 'TOP' : 'node');
  const details: Child[] = [];
  if (failed(part)) details.push(node.entry?.state ?? part.message);
  else details.push(`state ${nodeStateText(part.state)}`);
  if (node.entry !== undefined) details.push(`stake ${coins(node.entry.amount)}`);
  if (!failed(part)) {
    details.push(h('span', null, 'miner ', walletLink(part.minerWallet)));
    details.push(`index ${part.nodeIndex}`);
  }
  const line = h(
    'p',
    { class: node.wallet === shown ? 'node shown' : 'node' },
    h('strong', { class: 'role' }, label),
    ' ',
    walletLink(node.wallet),
    node.wallet === shown ? ' (this wallet)' : '',
    h(
      'span',
      { class: 'node-details' },
      ...details.flatMap((detail, i) => [i === 0 ? ': ' : ' · ', detail]),
    ),
  );
  const children =
    node.children.length === 0
      ? ''
      : h('ul', null, ...node.children.map((child) => treeItem(child, shown)));
  return h('li', { 'aria-label': `${label} node ${node.wallet}` }, line, children);
}

function participationFacts(part: NodePart, top: string | undefined): HTMLElement {
  return facts([
    ['Node code', mono(part.code)],
    ['Role', roleOf(part.state) ?? 'unknown'],
    ['State', nodeStateText(part.state)],
    ['Node wallet', walletLink(part.nodeWallet)],
    ['Miner wallet', walletLink(part.minerWallet)],
    ['TOP node', top === undefined ? 'not found yet' : walletLink(top)],
    ['Index in the tree', String(part.nodeIndex)],
    ['Penalty', `${part.penalty}%`],
    ['Since', when(part.startTimestamp)],
    ['Lock period ends at block', String(part.lockTime)],
  ]);
}

export async function participationView(context: ViewContext, wallet: string): Promise<void> {
  const title = () => heading('Participation', ' ', mono(wallet));
  let part: NodePart;
  try {
    part = (await rpc('getNodePart', { wallet })).result;
  } catch (error) {
    if (context.stale()) return;
    if (!failed(error)) throw error;
    replace(view, title(), notice(error.message), link(`#/wallet/${wallet}`, 'The wallet'));
    return;
  }
  if (context.stale()) return;
  const factsPart = h('div');
  const treePart = h('div');
  const more = h('button', { type: 'button', hidden: true }, 'Look further back');
  replace(
    view,
    title(),
    section('Participation', 'part-heading', factsPart),
    section('Tree', 'tree-heading', treePart, more),
  );
  // The wallet asked about may be the node's miner wallet: the tree shows the node wallet.
  const shown = part.nodeWallet;
  let top = roleOf(part.state) === 'TOP' ? part.nodeWallet : undefined;
  let scannedFrom = (await rpc('getBlockCount')) as number;

  async function refresh(): Promise<void> {
    if (top === undefined) return;
    const tree = await loadTree(part.code, top);
    if (context.stale()) return;
    const latest = findNode(tree, shown)?.part;
    if (latest !== undefined && !failed(latest)) part = latest;
    replace(factsPart, participationFacts(part, top));
    replace(
      treePart,
      h('ul', { class: 'tree', 'aria-label': 'Participation tree' }, treeItem(tree, shown)),
    );
  }

  /** Looks SCAN_BLOCKS further back for the node code's nodeStep1 operation (its TOP wallet). */
  async function findTop(): Promise<void> {
    const from = Math.max(0, scannedFrom - SCAN_BLOCKS);
    const ops = await operationsOfBlocks(from, scannedFrom - 1);
    if (context.stale()) return;
    scannedFrom = from;
    top = ops.find(
      (op) => op.optype === OPTYPE_TOP_JOIN && nodeCodeOf(op) === part.code,
    )?.signer_account;
    if (top !== undefined) {
      more.hidden = true;
      await refresh();
      return;
    }
    replace(factsPart, participationFacts(part, undefined));
    replace(
      treePart,
      notice(
        from === 0
          ? `No block holds the nodeStep1 operation of node code ${part.code}: its TOP node is unknown.`
          : `The TOP node of node code ${part.code} joined before block ${from}: look further back to find it.`,
      ),
    );
    more.hidden = from === 0;
  }
  more.addEventListener('click', () => {
    findTop().catch(showProblem);
  });

  if (top === undefined) await findTop();
  else await refresh();
  context.onChainChange(refresh);
}

/** The TOP nodes that joined (nodeStep1) in the latest blocks, scanned back on request. */
export async function topNodesView(context: ViewContext): Promise<void> {
  const height = await rpc('getBlockCount');
  if (context.stale()) return;
  const listPart = h('div');
  const producersPart = h('div');
  const more = h('button', { type: 'button' }, `Look ${SCAN_BLOCKS} blocks further back`);
  replace(
    view,
    heading('Participation'),
    notice(
      'A TOP node heads a tree of MIDDLE nodes, each with its BOTTOM nodes. Open a TOP node to ' +
        "see its tree, or a wallet's page to see its participation.",
    ),
    section('TOP nodes', 'top-nodes-heading', listPart, more),
    section('Block producers', 'producers-heading', producersPart),
  );
  const found: OperationObject[] = [];
  let scannedFrom = height;
  let producers: ProducerScan | undefined;

  async function scanBack(): Promise<void> {
    const from = Math.max(0, scannedFrom - SCAN_BLOCKS);
    const ops = await operationsOfBlocks(from, scannedFrom - 1);
    producers ??= await loadProducers(Math.max(0, height - SCAN_BLOCKS), height - 1);
    if (context.stale()) return;
    found.push(...ops.filter((op) => op.optype === OPTYPE_TOP_JOIN));
    scannedFrom = from;
    more.hidden = from === 0;
    const range = `blocks ${from} to ${height - 1}`;
    const genesis: ProducerScan = {
      ...producers,
      producers: producers.producers.filter((producer) => producer.genesis),
    };
    replace(
      producersPart,
      notice(
        'The genesis producers sign blocks from the start; the mine wallet of each TOP node joins ' +
          'them at its blockchainStart.',
      ),
      producersTable('Genesis producers', genesis),
      link('#/producers', 'All block producers'),
    );
    replace(
      listPart,
      found.length === 0
        ? notice(
            from === 0
              ? 'No TOP node has joined yet: the genesis producers below produce the blocks.'
              : `No TOP node joined in ${range}: the genesis producers below produce the blocks.`,
          )
        : table(
            `TOP nodes that joined in ${range}`,
            ['TOP node', 'Node code', 'Joined in block', 'Stake'],
            found.map((op) => [
              link(
                `#/participation/${op.signer_account}`,
                mono(op.signer_account),
                `participation tree of ${op.signer_account}`,
              ),
              mono(nodeCodeOf(op) ?? ''),
              blockLink(op.block),
              op.amount === undefined ? '' : coins(op.amount),
            ]),
          ),
    );
  }
  more.addEventListener('click', () => {
    scanBack().catch(showProblem);
  });
  await scanBack();
}
