import { join } from 'node:path';
import type { Chain } from '@chain/ledger';
import { createP2PNode, type Libp2pMetricsFactory, type P2PNode } from '@chain/p2p-libp2p';
import { type Logger, moduleLogger } from './logger';
import { DEFAULT_P2P_PORT, type NodeOptions } from './options';
import { p2pListening } from './p2p-listening';
import { logSyncProgress } from './sync-progress-log';
import { APP_VERSION, NET_PROTOCOL } from './version';

/**
 * The node's peer-to-peer side (@chain/p2p-libp2p): listens on --p2p-host:--p2p-port, dials --peers
 * and the peers it knew before a restart; keeps its peer key, known peers and blacklist in
 * `<datadir>/p2p/`.
 */
export async function startNetworking(
  options: Pick<
    NodeOptions,
    | 'datadir'
    | 'genesis'
    | 'p2pHost'
    | 'p2pPort'
    | 'peers'
    | 'p2pMaxConnections'
    | 'p2pMaxInboundPerIp'
    | 'sync'
    | 'snapDistance'
    | 'snapOperations'
    | 'fetchHistory'
    | 'serveSnapshots'
    | 'discovery'
  >,
  chain: Chain,
  log: Logger,
  libp2pMetrics?: () => Libp2pMetricsFactory,
): Promise<P2PNode> {
  const p2pLog = moduleLogger(log, 'p2p');
  const listening = p2pListening(options);
  const p2p = createP2PNode({
    chain,
    dir: join(options.datadir, 'p2p'),
    host: listening.host,
    inbound: listening.inbound,
    port: options.p2pPort,
    defaultPeerPort: DEFAULT_P2P_PORT,
    appVersion: APP_VERSION,
    netProtocol: NET_PROTOCOL,
    peers: options.peers,
    // Peer exchange from the start on every network but dev (docs/decisions.md): a real node is
    // given an address or two and finds the rest; dev nodes stay apart unless nodeSearch is asked.
    discovery: options.discovery && chain.genesis.network !== 'dev',
    maxConnections: options.p2pMaxConnections,
    maxInboundPerIp: options.p2pMaxInboundPerIp,
    sync: options.sync,
    snapDistance: options.snapDistance,
    snapOperations: options.snapOperations,
    fetchHistory: options.fetchHistory,
    serveSnapshots: options.serveSnapshots,
    log: p2pLog,
    ...(libp2pMetrics ? { libp2pMetrics } : {}),
  });
  await p2p.start();
  if (!listening.inbound) {
    p2pLog.info(
      { host: listening.host, port: p2p.listenPort },
      'the embedded dev network keeps to itself: no inbound peers (--p2p-host or --peers lets them in)',
    );
  }
  logSyncProgress(p2p, p2pLog);
  return p2p;
}
