import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_KEYSTORE_OPTIONS } from '@chain/keystore/options';
import { DEFAULT_CHAIN_OPTIONS } from '@chain/ledger/options';
import { DEFAULT_P2P_OPTIONS } from '@chain/p2p-libp2p/options';
import { DEFAULT_RPC_SERVER_OPTIONS } from '@chain/rpc-jayson/options';
import { withDefaults } from '@chain/spec';
import type { Options as FlagDeclaration } from 'yargs';
import { DEFAULT_MAX_HEAP_MB } from './heap-budget';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Everything a node can be told; the CLI only parses flags, environment and config file into this. */
export interface NodeOptions {
  /** Data directory; defaults to `~/.chain-node/<network>`. */
  datadir: string;
  /** Network name; `dev` is the embedded development network. */
  network: string;
  /** Path of a genesis JSON file (`chain-node init` writes one); empty for the embedded dev genesis. */
  genesis: string;
  /**
   * walletRefresh reads only the key files the kernel told changed (Linux), not the whole key
   * directory (@chain/keystore's watchDirectory).
   */
  keystoreWatch: boolean;
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
  /**
   * Address the P2P listener binds to (and dials from, when it is a specific address); empty: by
   * network (p2pListening in networking.ts): 127.0.0.1 with no inbound peers on the embedded dev
   * network, 0.0.0.0 on any other.
   */
  p2pHost: string;
  p2pPort: number;
  /** Peers to dial at start, `ip:port`. */
  peers: string[];
  /** Open P2P connections at most, both ways (@chain/p2p-libp2p's `maxConnections`). */
  p2pMaxConnections: number;
  /** Inbound P2P connections from one IP at most, handshakes included. */
  p2pMaxInboundPerIp: number;
  /** `snap`: a new node far behind joins from its peers' snapshot; `full`: replays every block. */
  sync: 'snap' | 'full';
  /** Blocks behind its peers beyond which a node at block 0 joins from a snapshot. */
  snapDistance: number;
  /**
   * Operations to replay (as a peer's hello tells them) from which a node at block 0 joins from a
   * snapshot however few blocks hold them, when copying the snapshot costs less (snap-sync.ts).
   */
  snapOperations: number;
  /** After a snapshot join, fetch the blocks below it in the background. */
  fetchHistory: boolean;
  /** Serve snapshots to joining peers (kept on disk: about twice the state's entries). */
  serveSnapshots: boolean;
  /**
   * Peer discovery from the start (peer exchange, the outbound target): on every network but dev,
   * where it stays off whatever this says until nodeSearch (docs/decisions.md).
   */
  discovery: boolean;
  /** Key-store wallets whose keys sign blocks, unlocked at start (see mine-wallets.ts). */
  mineWallets: string[];
  /** File whose first line is the mine wallets' passphrase (else CHAIN_MINE_PASSPHRASE). */
  minePassphraseFile: string;
  /** Milliseconds between blocks while operations are pending; 0 = a block per submission. */
  blockTimeMs: number;
  /**
   * Milliseconds after the last block at which a producer makes an empty block while nothing is
   * pending, so that confirmations keep counting on a quiet chain; 0 = never (docs/decisions.md).
   */
  emptyBlockMs: number;
  /**
   * Blocks for which sendTo's and sendToken's client `reference` is remembered after its first use
   * (docs/decisions.md, "Withdrawal references"): a repeat within them never pays twice.
   */
  referenceBlocks: number;
  /** Produce blocks when this node holds a producer key; false makes it a follower. */
  mine: boolean;
  /** Key-store passphrase of the dev wallet on the dev network. */
  devPassphrase: string;
  /** A level (`info`), or a default and module levels: `info,p2p=debug,rpc=warn` (logger.ts). */
  logLevel: string;
  /** `pretty`, `json`, or `auto`: pretty on a terminal, JSON elsewhere. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Also log (JSON) to this file (the live log), rotated by size to FILE.1 ... FILE.N; empty for none. */
  logFile: string;
  /** Size at which the log file is rotated (`10m`, `500k`, `1g`; a bare number is MB). */
  logFileSize: string;
  /** Rotated log files kept beside the live one. */
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
  /**
   * Megabytes of heap the mempool may hold (@chain/ledger's `maxPendingBytes`; MEMPOOL_FULL
   * beyond). Unset: MEMPOOL_HEAP_SHARE of the heap's limit (mempoolBudgetBytes).
   */
  mempoolMb?: number;
  /** Read the whole state at start and check it against its checksum (slow on a large state). */
  verifyState: boolean;
}

export const DEFAULT_RPC_PORT = DEFAULT_RPC_SERVER_OPTIONS.port;
export const DEFAULT_P2P_PORT = DEFAULT_P2P_OPTIONS.port;
export const DEFAULT_METRICS_PORT = 9715;

/**
 * One flag of `chain-node start`, declared in its group beside the defaults it overrides: the
 * NodeOptions field it sets, its type and help. Its default (given to yargs, so help prints it) is
 * the field's in the group's defaults, unless `shownDefault` says what applies when it is unset
 * (another package's default, a derived path, nothing).
 */
interface StartFlag {
  readonly option: keyof NodeOptions;
  readonly type: 'string' | 'number' | 'boolean' | 'array';
  readonly describe: string;
  readonly choices?: readonly string[];
  /** Help's default for a flag left unset by default (no yargs default is set then). */
  readonly shownDefault?: string;
  /** The flag's own default when its text differs from the option's value (peers). */
  readonly flagDefault?: unknown;
  /** The option's value from the flag's (peers: `ip:port;ip:port`). */
  readonly parse?: (value: unknown) => unknown;
}

/** A group of flags (a heading of `chain-node start --help`) with the defaults they override. */
interface StartFlagGroup {
  readonly title: string;
  readonly defaults: Readonly<Partial<NodeOptions>>;
  readonly flags: Readonly<Record<string, StartFlag>>;
}

const rpcServer = DEFAULT_RPC_SERVER_OPTIONS;

const NODE_DEFAULTS = {
  network: 'dev',
  genesis: '',
  keystoreWatch: DEFAULT_KEYSTORE_OPTIONS.watchDirectory,
} as const;
const NODE_FLAGS: StartFlagGroup = {
  title: 'Node',
  defaults: NODE_DEFAULTS,
  flags: {
    datadir: {
      option: 'datadir',
      type: 'string',
      describe: 'data directory',
      shownDefault: '~/.chain-node/<network>',
    },
    network: { option: 'network', type: 'string', describe: 'network name' },
    genesis: {
      option: 'genesis',
      type: 'string',
      describe: 'genesis JSON file',
      shownDefault: 'the embedded dev network',
    },
    'keystore-watch': {
      option: 'keystoreWatch',
      type: 'boolean',
      describe:
        'walletRefresh reads only the key files the kernel told changed, and a key use stats its file only after a change, on Linux (--no-keystore-watch: the whole key directory each time and a stat at every use, for one on a network file system written from elsewhere)',
    },
  },
};

const RPC_DEFAULTS = {
  rpcHost: rpcServer.host,
  rpcPort: DEFAULT_RPC_PORT,
  rpcUser: '',
  rpcPassword: '',
  rpcAllowKeys: false,
  rpcCors: [] as string[],
  rpcAllowedHosts: [] as string[],
};
const RPC_FLAGS: StartFlagGroup = {
  title: 'JSON-RPC',
  defaults: RPC_DEFAULTS,
  flags: {
    'rpc-host': { option: 'rpcHost', type: 'string', describe: 'JSON-RPC bind address' },
    'rpc-port': { option: 'rpcPort', type: 'number', describe: 'JSON-RPC port' },
    'rpc-user': {
      option: 'rpcUser',
      type: 'string',
      describe: 'JSON-RPC Basic auth user',
      shownDefault: 'none (the cookie file off loopback)',
    },
    'rpc-password': {
      option: 'rpcPassword',
      type: 'string',
      describe: 'JSON-RPC Basic auth password',
      shownDefault: 'none',
    },
    'rpc-allow-keys': {
      option: 'rpcAllowKeys',
      type: 'boolean',
      describe: 'allow methods that carry raw private keys off loopback',
    },
    'rpc-cors': { option: 'rpcCors', type: 'array', describe: 'allowed CORS origins' },
    'rpc-allowed-hosts': {
      option: 'rpcAllowedHosts',
      type: 'array',
      describe: 'extra allowed Host names',
    },
    // Unset: the RPC server's defaults (@chain/rpc-jayson's, the one place they are kept).
    'rpc-ws-max-connections': {
      option: 'rpcWsMaxConnections',
      type: 'number',
      describe: 'WebSocket connections at once, in total',
      shownDefault: String(rpcServer.wsMaxConnections),
    },
    'rpc-ws-max-connections-per-ip': {
      option: 'rpcWsMaxConnectionsPerIp',
      type: 'number',
      describe: 'WebSocket connections at once from one IP',
      shownDefault: String(rpcServer.wsMaxConnectionsPerIp),
    },
    'rpc-ws-max-subscriptions': {
      option: 'rpcWsMaxSubscriptions',
      type: 'number',
      describe: 'subscriptions per WebSocket connection',
      shownDefault: String(rpcServer.wsMaxSubscriptions),
    },
    'rpc-ws-max-buffered-bytes': {
      option: 'rpcWsMaxBufferedBytes',
      type: 'number',
      describe: 'bytes a WebSocket client may leave unread before it is disconnected',
      shownDefault: `${rpcServer.wsMaxBufferedBytes} (${rpcServer.wsMaxBufferedBytes / 1024 ** 2} MiB)`,
    },
  },
};

// @chain/p2p-libp2p's defaults, read from its `options` entry (which loads no libp2p).
const P2P_DEFAULTS = {
  // Empty: by network (networking.ts): the embedded dev network keeps to this machine.
  p2pHost: '',
  p2pPort: DEFAULT_P2P_PORT,
  p2pMaxConnections: DEFAULT_P2P_OPTIONS.maxConnections,
  p2pMaxInboundPerIp: DEFAULT_P2P_OPTIONS.maxInboundPerIp,
  peers: [] as string[],
  sync: DEFAULT_P2P_OPTIONS.sync as NodeOptions['sync'],
  snapDistance: DEFAULT_P2P_OPTIONS.snapDistance,
  snapOperations: DEFAULT_P2P_OPTIONS.snapOperations,
  fetchHistory: DEFAULT_P2P_OPTIONS.fetchHistory,
  serveSnapshots: DEFAULT_P2P_OPTIONS.serveSnapshots,
  discovery: true,
};
const P2P_FLAGS: StartFlagGroup = {
  title: 'Peer-to-peer',
  defaults: P2P_DEFAULTS,
  flags: {
    'p2p-port': { option: 'p2pPort', type: 'number', describe: 'peer-to-peer port' },
    peers: {
      option: 'peers',
      type: 'string',
      describe: 'peers to dial, ip:port;ip:port',
      flagDefault: '',
      parse: (value) =>
        String(value ?? '')
          .split(';')
          .map((peer) => peer.trim())
          .filter(Boolean),
    },
    'p2p-host': {
      option: 'p2pHost',
      type: 'string',
      describe:
        'P2P bind address (a specific address is also the source of outgoing connections); given, inbound peers are accepted',
      shownDefault: `127.0.0.1 and no inbound peers on the embedded dev network, else ${DEFAULT_P2P_OPTIONS.host}`,
    },
    'p2p-max-connections': {
      option: 'p2pMaxConnections',
      type: 'number',
      describe: 'open P2P connections at most, inbound and outbound',
    },
    'p2p-max-inbound-per-ip': {
      option: 'p2pMaxInboundPerIp',
      type: 'number',
      describe: 'inbound P2P connections from one IP at most (handshakes included)',
    },
    sync: {
      option: 'sync',
      type: 'string',
      choices: ['snap', 'full'],
      describe:
        'a new node far behind: join from a verified snapshot (snap) or replay every block (full)',
    },
    'snap-distance': {
      option: 'snapDistance',
      type: 'number',
      describe:
        'blocks behind its peers from which a new node joins from a snapshot, whatever the work',
    },
    'snap-operations': {
      option: 'snapOperations',
      type: 'number',
      describe:
        'operations to replay from which a new node joins from a snapshot however few blocks hold them, when copying the state costs less',
    },
    history: {
      option: 'fetchHistory',
      type: 'boolean',
      describe: 'after a snapshot join, fetch the blocks below it (--no-history: keep none)',
    },
    'serve-snapshots': {
      option: 'serveSnapshots',
      type: 'boolean',
      describe:
        'serve state snapshots to joining peers, two kept on disk (--no-serve-snapshots: none)',
    },
    discovery: {
      option: 'discovery',
      type: 'boolean',
      describe:
        'find peers by peer exchange from the start, off on dev networks (--no-discovery: dial only the known servers)',
    },
  },
};

const BLOCK_DEFAULTS = {
  mineWallets: [] as string[],
  minePassphraseFile: '',
  blockTimeMs: 1000,
  emptyBlockMs: 0,
  // About a week of 5-second blocks: far beyond any client's retry loop.
  referenceBlocks: 120_000,
  mine: true,
  devPassphrase: 'dev',
};
const BLOCK_FLAGS: StartFlagGroup = {
  title: 'Blocks',
  defaults: BLOCK_DEFAULTS,
  flags: {
    'mine-wallet': {
      option: 'mineWallets',
      type: 'array',
      describe: 'key-store wallet that signs blocks, unlocked at start (repeat)',
    },
    'mine-passphrase-file': {
      option: 'minePassphraseFile',
      type: 'string',
      describe: 'file holding the --mine-wallet passphrase',
      shownDefault: '$CHAIN_MINE_PASSPHRASE',
    },
    'block-time': {
      option: 'blockTimeMs',
      type: 'number',
      describe: 'ms between blocks while operations are pending (0 = a block per submission)',
    },
    'empty-block-time': {
      option: 'emptyBlockMs',
      type: 'number',
      describe: 'ms after the last block for an empty block while nothing is pending (0 = never)',
    },
    'reference-blocks': {
      option: 'referenceBlocks',
      type: 'number',
      describe: 'blocks a sendTo/sendToken reference is remembered after its first use',
    },
    mine: {
      option: 'mine',
      type: 'boolean',
      describe: 'produce blocks (--no-mine: follow only)',
    },
    'dev-passphrase': {
      option: 'devPassphrase',
      type: 'string',
      describe: 'key-store passphrase of the dev wallet',
    },
  },
};

const LOG_DEFAULTS = {
  logLevel: 'info',
  logFormat: 'auto' as NodeOptions['logFormat'],
  logFile: '',
  logFileSize: '10m',
  logFileCount: 5,
};
const LOG_FLAGS: StartFlagGroup = {
  title: 'Logging',
  defaults: LOG_DEFAULTS,
  flags: {
    'log-level': {
      option: 'logLevel',
      type: 'string',
      describe:
        'log level (trace, debug, info, warn, error, silent), or per module: info,p2p=debug,rpc=warn',
    },
    'log-format': {
      option: 'logFormat',
      type: 'string',
      choices: ['auto', 'json', 'pretty'],
      describe: 'console log format (auto: pretty on a terminal, else JSON)',
    },
    'log-file': {
      option: 'logFile',
      type: 'string',
      describe:
        'also log (JSON) to this file, the live log; rotated by size to FILE.1 (newest) ... FILE.N',
      shownDefault: 'none',
    },
    'log-file-size': {
      option: 'logFileSize',
      type: 'string',
      describe: 'rotate the log file at this size (500k, 10m, 1g; a bare number is MB)',
    },
    'log-file-count': {
      option: 'logFileCount',
      type: 'number',
      describe: 'rotated log files kept beside the live one (FILE.1 ... FILE.N)',
    },
  },
};

const METRICS_DEFAULTS = {
  metrics: false,
  metricsHost: '127.0.0.1',
  metricsPort: DEFAULT_METRICS_PORT,
};
const METRICS_FLAGS: StartFlagGroup = {
  title: 'Metrics',
  defaults: METRICS_DEFAULTS,
  flags: {
    metrics: {
      option: 'metrics',
      type: 'boolean',
      describe: 'serve Prometheus metrics at http://<metrics-address>:<metrics-port>/metrics',
    },
    'metrics-address': { option: 'metricsHost', type: 'string', describe: 'metrics bind address' },
    'metrics-port': { option: 'metricsPort', type: 'number', describe: 'metrics port' },
  },
};

/**
 * Share of the heap's limit (--max-heap-mb) the mempool may hold when --mempool-mb is unset: 48 MB
 * of the default 240, about 17,600 transfers to new wallets or 25,600 between known ones
 * (@chain/ledger's pendingEntryBytes, as measured in session 25). The rest is for what does not shrink under a burst: the
 * state cache (--state-cache-mb, 64), the signature cache, the recent blocks, a block being
 * produced and the pending state rebuilt beside the old one after it, RPC and gossip buffers, and
 * the garbage V8 collects late. 0.3 (72 MB) kept the node alive through a ten-minute burst at full
 * intake with blocks every 5 s but let its RSS pass 400 MB (415 MB, the heap filled toward its
 * budget behind a full pool): a pool of 17,600 to 25,600 still holds nearly two full blocks or more (issue 44;
 * `npm run bench -- --only burst --duration 600`, docs/performance.md).
 */
export const MEMPOOL_HEAP_SHARE = 0.2;

const MB = 2 ** 20;

/**
 * The mempool's byte budget: --mempool-mb, or MEMPOOL_HEAP_SHARE of `heapLimitBytes`, the heap's
 * limit (heapLimitBytes in node.ts: the budget thread's --max-heap-mb, else V8's own limit, which
 * a --max-old-space-size of the user's sets).
 */
export function mempoolBudgetBytes(
  options: Pick<NodeOptions, 'mempoolMb'>,
  heapLimitBytes: number,
): number {
  if (options.mempoolMb !== undefined) return Math.floor(options.mempoolMb * MB);
  return Math.floor(MEMPOOL_HEAP_SHARE * heapLimitBytes);
}

const STATE_DEFAULTS = {
  maxHeapMb: DEFAULT_MAX_HEAP_MB,
  stateCacheMb: DEFAULT_CHAIN_OPTIONS.stateCacheMb,
  verifyState: false,
};
const STATE_FLAGS: StartFlagGroup = {
  title: 'State and memory',
  defaults: STATE_DEFAULTS,
  flags: {
    'max-heap-mb': {
      option: 'maxHeapMb',
      type: 'number',
      describe:
        "heap budget in MB (V8's old generation; 0 = none, V8 sizes it from the machine's memory)",
    },
    'state-cache-mb': {
      option: 'stateCacheMb',
      type: 'number',
      describe: 'megabytes of committed state (accounts, addresses, tokens) kept decoded in memory',
    },
    'mempool-mb': {
      option: 'mempoolMb',
      type: 'number',
      describe:
        'megabytes of heap the pending operations may hold (MEMPOOL_FULL beyond: retry after the next block)',
      shownDefault: `${MEMPOOL_HEAP_SHARE * 100}% of the heap budget`,
    },
    'verify-state': {
      option: 'verifyState',
      type: 'boolean',
      describe:
        'read the whole state at start and check it against its checksum (slow on a large state)',
    },
  },
};

/** The flags of `chain-node start`, by group, in the order help shows them. */
export const START_FLAG_GROUPS: readonly StartFlagGroup[] = [
  NODE_FLAGS,
  RPC_FLAGS,
  P2P_FLAGS,
  BLOCK_FLAGS,
  LOG_FLAGS,
  METRICS_FLAGS,
  STATE_FLAGS,
];

/** Every default of a node but the data directory (which follows the network): the groups' own. */
export const DEFAULT_NODE_OPTIONS: Readonly<Omit<NodeOptions, 'datadir'>> = Object.freeze({
  ...NODE_DEFAULTS,
  ...RPC_DEFAULTS,
  ...P2P_DEFAULTS,
  ...BLOCK_DEFAULTS,
  ...LOG_DEFAULTS,
  ...METRICS_DEFAULTS,
  ...STATE_DEFAULTS,
});

/** A yargs option declaration (type, help, default, group) of each start flag. */
export function startFlagDeclarations(): Record<string, FlagDeclaration> {
  const declarations: Record<string, FlagDeclaration> = {};
  for (const group of START_FLAG_GROUPS) {
    for (const [flag, spec] of Object.entries(group.flags)) {
      const declaration: FlagDeclaration = {
        type: spec.type,
        describe: spec.describe,
        group: `${group.title}:`,
      };
      if (spec.type === 'array') declaration.string = true;
      if (spec.choices !== undefined) declaration.choices = spec.choices;
      if (spec.shownDefault !== undefined) declaration.defaultDescription = spec.shownDefault;
      else if (spec.flagDefault !== undefined) declaration.default = spec.flagDefault;
      else declaration.default = (group.defaults as Record<string, unknown>)[spec.option];
      declarations[flag] = declaration;
    }
  }
  return declarations;
}

/** The node options the start flags' values set (`argv` by flag name, as yargs parsed it). */
export function nodeOptionsFromFlags(
  argv: Readonly<Record<string, unknown>>,
): Partial<NodeOptions> {
  const options: Record<string, unknown> = {};
  for (const group of START_FLAG_GROUPS) {
    for (const [flag, spec] of Object.entries(group.flags)) {
      const value = argv[flag];
      options[spec.option] = spec.parse === undefined ? value : spec.parse(value);
    }
  }
  return options as Partial<NodeOptions>;
}

/**
 * The start flags other commands accept and ignore, hidden: the environment (`CHAIN_*`) and the
 * `--config` file are shared by every command, so a `CHAIN_DATADIR` set for the node must not make
 * `chain-node call` fail as an unknown argument under yargs' strict mode. `except`: the flags the
 * command declares itself.
 */
export function startFlagsTakenAlong(
  except: readonly string[],
): Record<string, { type: StartFlag['type']; string?: true; hidden: true }> {
  const taken: Record<string, { type: StartFlag['type']; string?: true; hidden: true }> = {};
  for (const group of START_FLAG_GROUPS) {
    for (const [flag, spec] of Object.entries(group.flags)) {
      if (except.includes(flag)) continue;
      taken[flag] =
        spec.type === 'array'
          ? { type: spec.type, string: true, hidden: true }
          : { type: spec.type, hidden: true };
    }
  }
  return taken;
}

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
