import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  decodeAddress,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import { createLogger, createNode } from 'chain-node';
import { makeKeyFile } from './key-file';
import { call, makeDatadir, type NodeProcess, runChainNode, startNode } from './node-process';

/**
 * A multi-node harness: real chain-node processes on loopback, each on an address of its own
 * (127.<net>.0.<i>, all routed to `lo` on Linux), so that per-IP features (blacklist, nodeIPStats)
 * see distinct peers. `<net>` is random per harness so concurrent runs do not meet. Every node
 * listens on a free P2P port (learnt from nodeStatus) and JSON-RPC on 127.0.0.1.
 */
export interface NetworkNode extends NodeProcess {
  readonly host: string;
  readonly p2pPort: number;
  /** `host:p2pPort`, for --peers and addNode. */
  readonly p2pAddress: string;
}

const NET = 1 + Math.floor(Math.random() * 250);
let nextHost = 2;

/** A fresh loopback address of this harness. */
export function loopbackHost(): string {
  return `127.${NET}.0.${nextHost++}`;
}

export interface NetworkNodeOptions {
  /** Extra chain-node start flags (e.g. --no-mine, --block-time 100). */
  args?: string[];
  /** Nodes (or `ip:port` strings) to dial at start. */
  peers?: Array<NetworkNode | string>;
  /** A genesis file (default: the embedded dev network). */
  genesis?: string;
  host?: string;
  datadir?: string;
  /** Key-store wallets that sign blocks (their key files must be in the datadir already). */
  mineWallets?: string[];
  env?: Record<string, string>;
  /** The RPC port (default: a free one, which a restart would not get again). */
  rpcPort?: number;
}

export const MINE_PASSPHRASE = 'mine-pass';

export async function startNetworkNode(options: NetworkNodeOptions = {}): Promise<NetworkNode> {
  const host = options.host ?? loopbackHost();
  const peers = (options.peers ?? []).map((p) => (typeof p === 'string' ? p : p.p2pAddress));
  const args = [
    '--p2p-host',
    host,
    ...(peers.length > 0 ? ['--peers', peers.join(';')] : []),
    ...(options.genesis ? ['--genesis', options.genesis] : []),
    ...(options.mineWallets ?? []).flatMap((wallet) => ['--mine-wallet', wallet]),
    ...(options.args ?? []),
  ];
  const node = await startNode({
    args,
    ...(options.datadir ? { datadir: options.datadir } : {}),
    ...(options.rpcPort === undefined ? {} : { rpcPort: options.rpcPort }),
    env: { CHAIN_MINE_PASSPHRASE: MINE_PASSPHRASE, ...options.env },
  });
  const status = await call<{ port: number }>(node.url, 'nodeStatus');
  return Object.assign(node, {
    host,
    p2pPort: status.port,
    p2pAddress: `${host}:${status.port}`,
  });
}

/** A producer or funded account of a test network: its key, public key and address. */
export interface TestKey {
  privateKey: Uint8Array;
  publicKey: string;
  address: string;
}

export function newTestKey(): TestKey {
  const privateKey = randomPrivateKey();
  const publicKey = getPublicKey(privateKey);
  return {
    privateKey,
    publicKey: bytesToHex(publicKey),
    address: addressFromPublicKey('CH', publicKey),
  };
}

/** Writes a key file (light scrypt, passphrase MINE_PASSPHRASE) into a data directory's key store. */
export async function installKey(datadir: string, key: TestKey): Promise<void> {
  const dir = join(datadir, 'keystore');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { json } = await makeKeyFile(key.privateKey, MINE_PASSPHRASE, { N: 2 ** 12, r: 8, p: 1 });
  await writeFile(join(dir, `UTC--2025-01-01T00-00-00.000000000Z--${key.address}.json`), json, {
    mode: 0o600,
  });
}

/**
 * A genesis written by `chain-node init`: the given producers (by public key), each funded with
 * `coins`, and the extra funded keys.
 */
export async function initGenesis(
  dir: string,
  producers: readonly TestKey[],
  funded: readonly TestKey[] = [],
  coins = '1000000',
): Promise<string> {
  const out = join(dir, 'genesis.json');
  const result = await runChainNode([
    'init',
    '--network',
    `e2e-${NET}-${Date.now()}`,
    ...producers.flatMap((p) => ['--producer', p.publicKey]),
    ...[...producers, ...funded].flatMap((k) => ['--alloc', `${k.address}=${coins}`]),
    '--out',
    out,
  ]);
  if (result.code !== 0) throw new Error(`chain-node init failed: ${result.stderr}`);
  return out;
}

/** A data directory holding the given keys in its key store. */
export async function datadirWithKeys(keys: readonly TestKey[]): Promise<string> {
  const datadir = await makeDatadir();
  for (const key of keys) await installKey(datadir, key);
  return datadir;
}

export async function removeDatadir(datadir: string): Promise<void> {
  await rm(datadir, { recursive: true, force: true });
}

export interface BlockSummary {
  block: number;
  hash: string;
  hmr: string;
  operations: number;
}

export async function tip(node: NodeProcess): Promise<BlockSummary> {
  const count = await call<number>(node.url, 'getBlockCount');
  return call<BlockSummary>(node.url, 'getBlockInfo', { block: count - 1 });
}

/** Waits until every node has the same tip hash, and returns it. */
export async function converged(
  nodes: readonly NodeProcess[],
  timeoutMs = 20_000,
): Promise<BlockSummary> {
  const deadline = Date.now() + timeoutMs;
  let last: BlockSummary[] = [];
  for (;;) {
    last = await Promise.all(nodes.map((n) => tip(n).catch(() => undefined as never)));
    if (last.every((t) => t !== undefined && t.hash === last[0]!.hash)) return last[0]!;
    if (Date.now() > deadline) {
      throw new Error(
        `nodes did not converge: ${last.map((t) => (t ? `${t.block}:${t.hash.slice(0, 10)}` : '?')).join(' ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A dev-network data directory holding `blocks` blocks of one transfer each, made in process through
 * chain-node's own API (far faster than one RPC round trip per block), for a real node to serve.
 */
export async function prepareDevChain(blocks: number): Promise<string> {
  const datadir = await makeDatadir();
  const node = createNode(
    { datadir, rpcPort: 0, p2pHost: '127.0.0.1', p2pPort: 0, mine: false, logLevel: 'silent' },
    createLogger('silent'),
  );
  const { devWallet } = await node.start();
  try {
    const key = await node.keystore.getPrivateKey(devWallet!.address, devWallet!.passphrase);
    const receiver = decodeAddress(newTestKey().address).hash160;
    for (let i = 0; i < blocks; i++) {
      await node.chain.signAndSubmit({
        optype: 2,
        signer: devWallet!.address,
        privateKey: key,
        body: {
          receiver: { hash160: receiver },
          amount: 1n,
          payloadType: 0,
          payload: new Uint8Array(0),
        },
      });
      await node.chain.produceBlock(key);
    }
  } finally {
    await node.close();
  }
  return datadir;
}
