/**
 * What `chain-node devnet` writes before it starts anything: a genesis naming K producers and M
 * prefunded active wallets, N data directories (producer i's key store holds its own key only; every
 * key store holds the prefunded wallets), the key stores' passphrase file and a manifest
 * (`devnet.json`) that says which node is which. `tools/netlab` reads the same manifest and starts the
 * nodes itself, in network namespaces.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  encodePrivateKey,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import { createKeyStore } from '@chain/keystore';
import { serializeGenesis } from '@chain/ledger';
import { buildGenesis } from './init';

/** The devnet's key stores use the dev network's light scrypt cost: never keep real value here. */
const DEVNET_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };
export const DEVNET_MANIFEST = 'devnet.json';

export interface DevnetPlan {
  dir: string;
  nodes: number;
  /** Default min(3, nodes). */
  producers?: number;
  /** Prefunded active wallets, in every node's key store. */
  accounts: number;
  /** Whole coins each prefunded wallet starts with. */
  balance: string;
  network: string;
  passphrase: string;
}

export interface DevnetAccount {
  address: string;
  /** Encoded private key (dumpPrivateKey's form): printed, Anvil-style. */
  privateKey: string;
}

export interface DevnetNodeEntry {
  name: string;
  datadir: string;
  /** The producer wallet this node signs blocks with (`--mine-wallet`), if it is one. */
  producer?: string;
}

export interface DevnetManifest {
  network: string;
  /** Absolute path of the genesis file. */
  genesis: string;
  /** Absolute path of the file holding the key stores' passphrase (`--mine-passphrase-file`). */
  passphraseFile: string;
  passphrase: string;
  accounts: DevnetAccount[];
  nodes: DevnetNodeEntry[];
}

export class DevnetUsageError extends Error {}

function defaultProducerCount(nodes: number): number {
  return Math.min(3, nodes);
}

function checkPlan(plan: DevnetPlan): number {
  if (!Number.isInteger(plan.nodes) || plan.nodes < 1 || plan.nodes > 64) {
    throw new DevnetUsageError(`--nodes must be a whole number 1-64, got ${plan.nodes}`);
  }
  const producers = plan.producers ?? defaultProducerCount(plan.nodes);
  if (!Number.isInteger(producers) || producers < 1 || producers > plan.nodes) {
    throw new DevnetUsageError(
      `--producers must be a whole number 1-${plan.nodes}, got ${producers}`,
    );
  }
  if (!Number.isInteger(plan.accounts) || plan.accounts < 1 || plan.accounts > 1000) {
    throw new DevnetUsageError(`--accounts must be a whole number 1-1000, got ${plan.accounts}`);
  }
  return producers;
}

/** Writes a new devnet into `plan.dir` (which must not hold one already) and returns its manifest. */
export async function createDevnet(plan: DevnetPlan): Promise<DevnetManifest> {
  const producerCount = checkPlan(plan);
  const dir = resolve(plan.dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const producerKeys = Array.from({ length: producerCount }, () => randomPrivateKey());
  const accountKeys = Array.from({ length: plan.accounts }, () => randomPrivateKey());
  const publicHex = (key: Uint8Array) => bytesToHex(getPublicKey(key));
  const genesis = buildGenesis({
    network: plan.network,
    prefix: 'CH',
    producer: producerKeys.map(publicHex),
    wallet: accountKeys.map(publicHex),
    alloc: accountKeys.map(
      (key) => `${addressFromPublicKey('CH', getPublicKey(key))}=${plan.balance}`,
    ),
    param: [],
  });
  const genesisFile = join(dir, 'genesis.json');
  await writeFile(genesisFile, `${serializeGenesis(genesis)}\n`, { flag: 'wx' });
  const passphraseFile = join(dir, 'passphrase');
  await writeFile(passphraseFile, `${plan.passphrase}\n`, { mode: 0o600 });

  const nodes: DevnetNodeEntry[] = [];
  for (let i = 0; i < plan.nodes; i++) {
    const name = `node${i + 1}`;
    const datadir = join(dir, name);
    const own = i < producerCount ? [producerKeys[i]!] : [];
    await writeKeyStore(datadir, [...own, ...accountKeys], plan.passphrase, genesis.prefix);
    nodes.push({
      name,
      datadir,
      ...(i < producerCount ? { producer: genesis.producers[i]! } : {}),
    });
  }
  const manifest: DevnetManifest = {
    network: genesis.network,
    genesis: genesisFile,
    passphraseFile,
    passphrase: plan.passphrase,
    accounts: accountKeys.map((key) => ({
      address: addressFromPublicKey(genesis.prefix, getPublicKey(key)),
      privateKey: encodePrivateKey(key),
    })),
    nodes,
  };
  for (const key of [...producerKeys, ...accountKeys]) key.fill(0);
  await writeFile(join(dir, DEVNET_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  return manifest;
}

async function writeKeyStore(
  datadir: string,
  keys: Uint8Array[],
  passphrase: string,
  prefix: string,
): Promise<void> {
  await mkdir(datadir, { recursive: true, mode: 0o700 });
  const keystore = createKeyStore({
    dir: join(datadir, 'keystore'),
    addressOf: (publicKey) => addressFromPublicKey(prefix, publicKey),
    scrypt: DEVNET_SCRYPT,
  });
  await keystore.open();
  try {
    for (const key of keys) await keystore.importKey(key, passphrase);
  } finally {
    await keystore.close();
  }
}

/** The manifest of the devnet in `dir`, or undefined when there is none. */
export async function readDevnet(dir: string): Promise<DevnetManifest | undefined> {
  try {
    return JSON.parse(
      await readFile(join(resolve(dir), DEVNET_MANIFEST), 'utf8'),
    ) as DevnetManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Ports of node i (0-based): RPC on base + 2i, P2P on base + 2i + 1 (node 1: 9713 and 9714). */
export function devnetPorts(basePort: number, index: number): { rpc: number; p2p: number } {
  return { rpc: basePort + 2 * index, p2p: basePort + 2 * index + 1 };
}

/** The `chain-node start` arguments of node i, dialling every other node of the devnet. */
export function devnetStartArgs(
  manifest: DevnetManifest,
  index: number,
  options: { host: string; basePort: number; blockTimeMs?: number; logLevel?: string },
): string[] {
  const node = manifest.nodes[index]!;
  const ports = devnetPorts(options.basePort, index);
  const peers = manifest.nodes
    .map((_, j) => j)
    .filter((j) => j !== index)
    .map((j) => `${options.host}:${devnetPorts(options.basePort, j).p2p}`);
  return [
    'start',
    '--datadir',
    node.datadir,
    '--genesis',
    manifest.genesis,
    '--network',
    manifest.network,
    '--rpc-host',
    options.host,
    '--rpc-port',
    String(ports.rpc),
    '--p2p-host',
    options.host,
    '--p2p-port',
    String(ports.p2p),
    ...(peers.length > 0 ? ['--peers', peers.join(';')] : []),
    ...(node.producer
      ? ['--mine-wallet', node.producer, '--mine-passphrase-file', manifest.passphraseFile]
      : []),
    ...(options.blockTimeMs !== undefined ? ['--block-time', String(options.blockTimeMs)] : []),
    ...(options.logLevel ? ['--log-level', options.logLevel] : []),
  ];
}
