import { bytesToHex } from '@chain/crypto';
import type { Reorganization as AdoptedBranch, BlacklistEntry } from '@chain/p2p-libp2p';
import { maskIp } from '@chain/p2p-libp2p';
import type { GroupHandlers } from '@chain/rpc-jayson';
import type { Reorganization } from '@chain/spec';
import { APP_VERSION, NET_PROTOCOL } from '../version';
import type { NodeContext } from './context';

/**
 * Whether the node is ready (networking on, at the best tip it knows of), why not, and its status
 * word: nodeStatus's `ready`, `ready_s` and `status_s`, and the RPC port's GET /ready.
 */
export function readiness(node: NodeContext): {
  ready: boolean;
  reason: string;
  status: 'Running' | 'Syncing' | 'Stopped';
} {
  const network = node.network;
  const running = network.running;
  if (!running) {
    return {
      ready: false,
      reason: 'Not ready: networking is stopped (nodeStart starts it)',
      status: 'Stopped',
    };
  }
  const progress = network.syncProgress();
  if (progress.syncing) {
    return {
      ready: false,
      reason: `Not ready: syncing blocks ${progress.currentBlock}/${progress.highestBlock}`,
      status: 'Syncing',
    };
  }
  if (!network.isSynced()) {
    return {
      ready: false,
      reason: 'Not ready: waiting for peers to tell their tip',
      status: 'Syncing',
    };
  }
  return { ready: true, reason: 'Ready', status: 'Running' };
}

/**
 * The wire object of a reorganisation the P2P node adopted (nodeStatus's `lastreorg`, the
 * `reorganizations` push event): the peer's IP masked as everywhere else, hashes as getBlockInfo
 * writes them (0x and 64 hex).
 */
export function reorganizationObject(adopted: AdoptedBranch): Reorganization {
  return {
    timestamp: Math.floor(adopted.at / 1000),
    peer: maskIp(adopted.peer),
    depth: adopted.depth,
    deep: adopted.deep,
    fork_block: adopted.forkHeight,
    old_head: { block: adopted.oldHead.height, hash: `0x${bytesToHex(adopted.oldHead.hash)}` },
    new_head: { block: adopted.newHead.height, hash: `0x${bytesToHex(adopted.newHead.hash)}` },
  };
}

/**
 * nodeStatus / nodeSearch. `ready`: networking is on and this node is at the best tip it knows of
 * (not syncing); `ready_s` says why not; `status_s`: Running, Syncing or Stopped; `port`: the P2P
 * port listened on; `blocks`: block count; `genesis`: the genesis hash (64 hex) that every operation
 * signature commits to (docs/wire-format.md), so offline wallets can sign; `prefix`: the network's
 * address prefix; `netstats` and
 * `nodeservers`: see @chain/p2p-libp2p's NetStats and KnownServer (IPs masked); `lastreorg`
 * (extension): the last reorganisation adopted since the node started, or null.
 */
export function nodeStatus(node: NodeContext) {
  const network = node.network;
  const { ready, reason, status } = readiness(node);
  const stats = network.netStats();
  const lastReorganization = network.lastReorganization();
  return {
    ready,
    ready_s: stats.active === 0 && ready ? 'Ready (no peer connected)' : reason,
    status_s: status,
    port: network.listenPort,
    timestamp: Math.floor(Date.now() / 1000),
    version: APP_VERSION,
    netprotocol: { ...NET_PROTOCOL },
    blocks: node.chain.blockCount(),
    genesis: bytesToHex(node.chain.genesisHash),
    prefix: node.chain.prefix,
    datafolder: node.datadir,
    netstats: stats,
    nodeservers: network.knownServers().map((server) => ({
      ip: maskIp(server.ip),
      port: server.port,
      lastcon: server.lastcon,
      attempts: server.attempts,
    })),
    lastreorg: lastReorganization === undefined ? null : reorganizationObject(lastReorganization),
    // Extension (not in the spec): the key store's wallets, and how far the one-time build of its
    // index is (null once built): the node answers meanwhile, listing the wallets indexed so far.
    keystore: keyStoreStatus(node),
  };
}

/** nodeStatus's and GET /health's `keystore`. */
export function keyStoreStatus(node: Pick<NodeContext, 'keystore'>): {
  wallets: number;
  indexing: { done: number; total: number } | null;
} {
  const progress = node.keystore.indexing();
  return {
    wallets: node.keystore.count(),
    indexing: progress === null ? null : { done: progress.done, total: progress.total },
  };
}

/** addBlacklist / getBlacklist: `LastConnection` is the last attempt from or to the IP (ISO 8601). */
function blacklistObject(entries: readonly BlacklistEntry[]) {
  return {
    blacklist: entries.map((entry) => ({
      ip: maskIp(entry.ip),
      port: entry.port,
      LastConnection: new Date(entry.lastConnection).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      reason: entry.reason,
    })),
    total: entries.length,
  };
}

/** The Network node group: the peer-to-peer node of @chain/p2p-libp2p. */
export function networkHandlers(node: NodeContext): GroupHandlers<'network'> {
  const network = node.network;
  return {
    getNodeVersion() {
      return { version: APP_VERSION };
    },

    getProtocolVersion() {
      return { netprotocol: { ...NET_PROTOCOL } };
    },

    addNode({ nodes }) {
      return network.addPeers(nodes);
    },

    nodeStatus() {
      return nodeStatus(node);
    },

    async nodeStart() {
      await network.start();
      return true;
    },

    async nodeStop() {
      await network.stop();
      return true;
    },

    async nodeSearch() {
      await network.start();
      network.enableDiscovery();
      return nodeStatus(node);
    },

    addBlacklist({ ip, why }) {
      network.addBlacklist(ip, why);
      return blacklistObject(network.blacklist());
    },

    getBlacklist() {
      return blacklistObject(network.blacklist());
    },

    clearBlacklist() {
      return network.clearBlacklist();
    },

    getConnection() {
      return {
        connection: network.connections().map((c) => ({
          server: c.server,
          ip: maskIp(c.ip),
          port: c.port,
          secs: c.secs,
          sent: c.sent,
          recv: c.recv,
          appver: c.appver,
          netver: c.netver,
          netver_a: c.netver_a,
          timediff: c.timediff,
        })),
      };
    },
  };
}
