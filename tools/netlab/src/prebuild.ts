/**
 * The late joiner's chain, built fast before the timed part: the producers' keys (read from their
 * key stores) sign `count` one-transfer blocks in turn straight into node 1's chain store, as its
 * producer would, and the other nodes get a copy before they start. The same blocks go to a block
 * file, which `chain-node import` imports on the late joiner's core just before it starts (its
 * yardstick, nodeImportRate); this process's own import of them is reported for reference.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { addressFromPublicKey, decodeAddress, decodePrivateKey } from '@chain/crypto';
import { createKeyStore } from '@chain/keystore';
import { createChain, type Genesis, parseGenesis, TRANSFER_OPTYPE } from '@chain/ledger';
import { createNodeRegistry, type DevnetManifest } from 'chain-node';
import { onCpus } from './host-cpus';
import { CHAIN_NODE_BIN } from './lab-node';

export interface Prebuilt {
  blocks: number;
  buildSeconds: number;
  /** Blocks per second a fresh chain in this process imports the same blocks at (before the start). */
  localImportBlocksPerS: number;
  /** The blocks' bytes and genesis, to measure the local import again (localImportRate). */
  blockBytes: Uint8Array[];
  genesis: Genesis;
  /** The same blocks in a block file (`chain-node export`), for `chain-node import` (nodeImportRate). */
  blockFile: string;
}

async function producerKeys(manifest: DevnetManifest, prefix: string): Promise<Uint8Array[]> {
  const keys: Uint8Array[] = [];
  for (const node of manifest.nodes) {
    if (node.producer === undefined) continue;
    const keystore = createKeyStore({
      dir: join(node.datadir, 'keystore'),
      addressOf: (publicKey) => addressFromPublicKey(prefix, publicKey),
    });
    await keystore.open();
    try {
      keys.push(await keystore.getPrivateKey(node.producer, manifest.passphrase));
    } finally {
      await keystore.close();
    }
  }
  return keys;
}

/** Builds `count` blocks into the chain store of `manifest.nodes[0]`; returns their bytes. */
async function buildBlocks(
  manifest: DevnetManifest,
  genesis: Genesis,
  count: number,
): Promise<Uint8Array[]> {
  const chain = createChain({
    dataDir: manifest.nodes[0]!.datadir,
    genesis,
    registry: createNodeRegistry(),
  });
  await chain.open();
  try {
    const keys = await producerKeys(manifest, chain.prefix);
    const byAccount = new Map(keys.map((key) => [chain.producerAccount(key)!, key]));
    // The last prefunded account (the lab's double spender, idle until the partition) pays one
    // unit to the first account per block.
    const sender = manifest.accounts[manifest.accounts.length - 1]!;
    const receiver = decodeAddress(manifest.accounts[0]!.address, chain.prefix).hash160;
    const privateKey = decodePrivateKey(sender.privateKey);
    const start = chain.blockCount();
    for (let k = 0; k < count; k++) {
      await chain.signAndSubmit({
        optype: TRANSFER_OPTYPE,
        signer: sender.address,
        privateKey,
        body: {
          receiver: { hash160: receiver },
          amount: 1n,
          payloadType: 0,
          payload: new Uint8Array(0),
        },
      });
      const inTurn = chain.inTurnProducer();
      const key =
        (inTurn !== undefined ? byAccount.get(inTurn) : undefined) ?? keys[k % keys.length]!;
      await chain.produceBlock(key);
    }
    const blocks: Uint8Array[] = [];
    for (let h = start; h < chain.blockCount(); h++) blocks.push((await chain.getBlockBytes(h))!);
    return blocks;
  } finally {
    await chain.close();
  }
}

/** Imports `blocks` (1..n) into a fresh chain; blocks per second. */
export async function localImportRate(genesis: Genesis, blocks: Uint8Array[]): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'chain-netlab-import-'));
  const chain = createChain({ dataDir: dir, genesis, registry: createNodeRegistry() });
  await chain.open();
  try {
    const started = performance.now();
    const run = await chain.importBlocks(blocks);
    if (run.refused !== undefined) throw run.refused.error;
    const seconds = (performance.now() - started) / 1000;
    if (chain.blockCount() !== blocks.length + 1) {
      throw new Error(`local import: ${chain.blockCount() - 1} of ${blocks.length} blocks`);
    }
    return blocks.length / seconds;
  } finally {
    await chain.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Builds the chain into node 1's store, copies it to the other nodes but those in `skip` (the late
 * joiners, which start empty) and measures the local import rate of the same blocks.
 */
export async function prebuildChain(
  manifest: DevnetManifest,
  count: number,
  skip: readonly string[],
): Promise<Prebuilt> {
  const genesis = parseGenesis(JSON.parse(await readFile(manifest.genesis, 'utf8')));
  const started = performance.now();
  const blocks = await buildBlocks(manifest, genesis, count);
  const buildSeconds = (performance.now() - started) / 1000;
  const blockFile = join(manifest.nodes[0]!.datadir, '..', 'prebuilt-blocks.bin');
  await chainNode(['export', ...datadirArgs(manifest, manifest.nodes[0]!.datadir), blockFile]);
  const source = join(manifest.nodes[0]!.datadir, 'chain');
  for (const node of manifest.nodes.slice(1)) {
    if (skip.includes(node.name)) continue;
    await cp(source, join(node.datadir, 'chain'), { recursive: true });
  }
  return {
    blocks: blocks.length,
    buildSeconds: Math.round(buildSeconds * 10) / 10,
    localImportBlocksPerS: Math.round(await localImportRate(genesis, blocks)),
    blockBytes: blocks,
    genesis,
    blockFile,
  };
}

/**
 * Blocks per second `chain-node import` of the block file imports at, into a fresh data directory:
 * the node's own local import, a process of its own started cold like the late joiner, timed by the
 * command from its first block to its last on disk.
 */
export async function nodeImportRate(
  manifest: DevnetManifest,
  blockFile: string,
  cpus?: string,
): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'chain-netlab-node-import-'));
  try {
    const out = await chainNode(['import', ...datadirArgs(manifest, dir), blockFile], cpus);
    const rate = /, (\d+) blocks\/s;/.exec(out)?.[1];
    if (rate === undefined) throw new Error(`chain-node import printed no rate: ${out}`);
    return Number(rate);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function datadirArgs(manifest: DevnetManifest, datadir: string): string[] {
  return ['--datadir', datadir, '--genesis', manifest.genesis, '--network', manifest.network];
}

async function chainNode(args: string[], cpus?: string): Promise<string> {
  const [command, commandArgs] = onCpus(cpus, process.execPath, [CHAIN_NODE_BIN, ...args]);
  try {
    return (await promisify(execFile)(command, commandArgs)).stdout;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`chain-node ${args[0]} failed: ${stderr || message}`);
  }
}
