import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CHAIN_OPTIONS } from '@chain/ledger/options';
import { DEFAULT_P2P_OPTIONS } from '@chain/p2p-libp2p/options';
import { DEFAULT_RPC_SERVER_OPTIONS } from '@chain/rpc-jayson/options';
import { withDefaults } from '@chain/spec';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Everything a node can be told; the CLI only parses flags, environment and config file into this. */
export interface NodeOptions {
  /** Data directory; defaults to `~/.chain-node/<network>`. */
  datadir: string;
  /** Network name; `dev` is the embedded development network. */
  network: string;
  /** Path of a genesis JSON file (`chain-node init` writes one); empty for the embedded dev genesis. */
  genesis: string;
  rpcHost: string;
  rpcPort: number;
  rpcUser: string;
  rpcPassword: string;
  /** Allow methods that carry raw private keys when the RPC server is not bound to loopback. */
  rpcAllowKeys: boolean;
  rpcCors: string[];
  rpcAllowedHosts: string[];
  /**
   * WebSocket limits of the RPC port (push, issue 16); unset = the RPC server's defaults
   * (@chain/rpc-jayson's DEFAULT_RPC_SERVER_OPTIONS, the one place they are kept).
   */
  rpcWsMaxConnections?: number;
  rpcWsMaxConnectionsPerIp?: number;
  rpcWsMaxSubscriptions?: number;
  rpcWsMaxBufferedBytes?: number;
  /** Address the P2P listener binds to (and dials from, when it is a specific address). */
  p2pHost: string;
  p2pPort: number;
  /** Peers to dial at start, `ip:port`. */
  peers: string[];
  /** Open P2P connections at most, both ways (@chain/p2p-libp2p's `maxConnections`). */
  p2pMaxConnections: number;
  /** Inbound P2P connections from one IP at most, handshakes included. */
  p2pMaxInboundPerIp: number;
  /** Key-store wallets whose keys sign blocks, unlocked at start (see mine-wallets.ts). */
  mineWallets: string[];
  /** File whose first line is the mine wallets' passphrase (else CHAIN_MINE_PASSPHRASE). */
  minePassphraseFile: string;
  /** Milliseconds between blocks while operations are pending; 0 = a block per submission. */
  blockTimeMs: number;
  /** Produce blocks when this node holds a producer key; false makes it a follower. */
  mine: boolean;
  /** Key-store passphrase of the dev wallet on the dev network. */
  devPassphrase: string;
  /** A level (`info`), or a default and module levels: `info,p2p=debug,rpc=warn` (logger.ts). */
  logLevel: string;
  /** `pretty`, `json`, or `auto`: pretty on a terminal, JSON elsewhere. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Also log (JSON) to this file, rotated by size; empty for none. */
  logFile: string;
  /** Size at which the log file is rotated (`10m`, `500k`, `1g`; a bare number is MB). */
  logFileSize: string;
  /** Rotated log files kept besides the current one. */
  logFileCount: number;
  /** Serve Prometheus metrics (off by default: nothing is loaded or counted for them then). */
  metrics: boolean;
  /** Address the metrics listener binds to. */
  metricsHost: string;
  /** Port of the metrics listener (GET /metrics). */
  metricsPort: number;
  /**
   * Heap budget in MB: the most V8's old generation may hold, so that garbage is collected before
   * it piles up (heap-budget.ts); 0 = none, V8 sizes the heap from the machine's memory. A
   * `--max-old-space-size` in NODE_OPTIONS or node's arguments takes precedence.
   */
  maxHeapMb: number;
  /** Megabytes of committed state kept decoded in memory (@chain/ledger's `stateCacheMb`). */
  stateCacheMb: number;
  /** Read the whole state at start and check it against its checksum (slow on a large state). */
  verifyState: boolean;
}

export const DEFAULT_RPC_PORT = DEFAULT_RPC_SERVER_OPTIONS.port;
export const DEFAULT_P2P_PORT = DEFAULT_P2P_OPTIONS.port;
export const DEFAULT_METRICS_PORT = 9715;
/**
 * Keeps RSS under 300 MB with 100,000 accounts and 100,000 token holders in state while a million
 * operations stream through (issue 20 item 5, issue 8's 400 MB before it; `npm run bench -- --only
 * memory`). The live heap is then about 80-100 MB; V8 lets garbage fill the old generation toward
 * the budget, and the Node binary, the young generation (heap-budget.ts), LevelDB and buffers add
 * about 100 MB beside it. 240 rather than 256 since the signature cache stopped keeping the last
 * 262,144 mined operations (10-21 MB of heap): what 256 held before still fits. A larger state
 * needs a larger budget: past it the node stops with a message naming --max-heap-mb.
 */
export const DEFAULT_MAX_HEAP_MB = 240;

export const DEFAULT_NODE_OPTIONS: Readonly<Omit<NodeOptions, 'datadir'>> = Object.freeze({
  network: 'dev',
  genesis: '',
  rpcHost: DEFAULT_RPC_SERVER_OPTIONS.host,
  rpcPort: DEFAULT_RPC_PORT,
  rpcUser: '',
  rpcPassword: '',
  rpcAllowKeys: false,
  rpcCors: [],
  rpcAllowedHosts: [],
  // @chain/p2p-libp2p's defaults, read from its `options` entry (which loads no libp2p).
  p2pHost: DEFAULT_P2P_OPTIONS.host,
  p2pPort: DEFAULT_P2P_PORT,
  p2pMaxConnections: DEFAULT_P2P_OPTIONS.maxConnections,
  p2pMaxInboundPerIp: DEFAULT_P2P_OPTIONS.maxInboundPerIp,
  peers: [],
  mineWallets: [],
  minePassphraseFile: '',
  blockTimeMs: 1000,
  mine: true,
  devPassphrase: 'dev',
  logLevel: 'info',
  logFormat: 'auto',
  logFile: '',
  logFileSize: '10m',
  logFileCount: 5,
  metrics: false,
  metricsHost: '127.0.0.1',
  metricsPort: DEFAULT_METRICS_PORT,
  maxHeapMb: DEFAULT_MAX_HEAP_MB,
  stateCacheMb: DEFAULT_CHAIN_OPTIONS.stateCacheMb,
  verifyState: false,
});

export function defaultDatadir(network: string): string {
  return join(homedir(), '.chain-node', network);
}

export function resolveNodeOptions(partial: Partial<NodeOptions>): NodeOptions {
  const network = partial.network ?? DEFAULT_NODE_OPTIONS.network;
  return {
    ...withDefaults(DEFAULT_NODE_OPTIONS, partial),
    datadir: partial.datadir || defaultDatadir(network),
  };
}
