import { homedir } from 'node:os';
import { join } from 'node:path';

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
  /** Address the P2P listener binds to (and dials from, when it is a specific address). */
  p2pHost: string;
  p2pPort: number;
  /** Peers to dial at start, `ip:port`. */
  peers: string[];
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
  logLevel: LogLevel;
}

export const DEFAULT_RPC_PORT = 9713;
export const DEFAULT_P2P_PORT = 9714;

export const DEFAULT_NODE_OPTIONS: Readonly<Omit<NodeOptions, 'datadir'>> = Object.freeze({
  network: 'dev',
  genesis: '',
  rpcHost: '127.0.0.1',
  rpcPort: DEFAULT_RPC_PORT,
  rpcUser: '',
  rpcPassword: '',
  rpcAllowKeys: false,
  rpcCors: [],
  rpcAllowedHosts: [],
  p2pHost: '0.0.0.0',
  p2pPort: DEFAULT_P2P_PORT,
  peers: [],
  mineWallets: [],
  minePassphraseFile: '',
  blockTimeMs: 1000,
  mine: true,
  devPassphrase: 'dev',
  logLevel: 'info',
});

export function defaultDatadir(network: string): string {
  return join(homedir(), '.chain-node', network);
}

export function resolveNodeOptions(partial: Partial<NodeOptions>): NodeOptions {
  const network = partial.network ?? DEFAULT_NODE_OPTIONS.network;
  return {
    ...DEFAULT_NODE_OPTIONS,
    ...stripUndefined(partial),
    datadir: partial.datadir || defaultDatadir(network),
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
