/**
 * The chain a snapshot join is measured on (issue 31: 2M accounts and 2M operations of history):
 * made in-process by @chain/ledger as a node makes it (signAndSubmit, produceBlock), into a data
 * directory a `chain-node start` then serves. The dev wallet funds `senders` fresh wallets, they
 * activate, then they send one transfer to each of `accounts` new addresses, `perBlock` a block:
 * every transfer creates an account, so the history holds about as many operations as the state
 * holds accounts, as in the figure.
 *
 * Each receiver's hash160 is derived from its number (snapChainHash160) and receives
 * snapChainAmount(n), so a benchmark picks a created account at random, and knows its balance,
 * without reading the chain. Chains are cached under `root` keyed by their parameters and
 * SNAP_CHAIN_FORMAT (building 2M operations takes minutes); a run serves a copy (copySnapChain).
 */
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressFromHash160,
  addressFromPublicKey,
  decodeAddress,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import {
  ACTIVATION_OPTYPE,
  type Chain,
  createChain,
  createDevGenesis,
  DEV_PRIVATE_KEY,
  TRANSFER_OPTYPE,
} from '@chain/ledger';
import { createNodeRegistry } from 'chain-node';
import { DEV_PREFIX } from './dev-chain.js';
import {
  cachedBuild,
  DEFAULT_FIXTURE_ROOT,
  directoryBytes,
  seededHash160,
} from './state-fixture.js';

/** Bumped whenever what a cached chain holds changes: older ones are then not used. */
export const SNAP_CHAIN_FORMAT = 1;
const READY_FILE = 'snap-chain-ready.json';

export interface SnapChainParams {
  /** New accounts, one transfer each. */
  accounts: number;
  /** Transfers per block. */
  perBlock: number;
  /** Funded, activated wallets that send the transfers in turn. */
  senders: number;
}

export interface SnapChain extends SnapChainParams {
  /** The cached data directory (do not start a node on it: copySnapChain). */
  dir: string;
  /** Height of the last block. */
  height: number;
  /** Operations in blocks 1..height (funding and activations included). */
  operations: number;
  /** Seconds the build took (when this run built it; else the cached build's). */
  buildSeconds: number;
  /** Bytes of the files of its chain database. */
  chainBytes: number;
}

type ReadyRecord = Omit<SnapChain, 'dir' | 'chainBytes'>;

/** Where a chain of these parameters is cached. */
export function snapChainDir(params: SnapChainParams, root = DEFAULT_FIXTURE_ROOT): string {
  return join(
    root,
    `snap-v${SNAP_CHAIN_FORMAT}-${params.accounts}a-${params.perBlock}pb-${params.senders}s`,
  );
}

/** The 20-byte hash of receiver `n` (0-based), the same in every chain. */
export function snapChainHash160(n: number): Uint8Array {
  return seededHash160('chain-bench-snap-chain', n);
}

export function snapChainAddress(n: number): string {
  return addressFromHash160(DEV_PREFIX, snapChainHash160(n));
}

/** What receiver `n` receives, in base units: balances differ, so a read proves the right one. */
export function snapChainAmount(n: number): bigint {
  return 1_000n + BigInt(n % 997);
}

/** The cached chain of `params`, built first when missing. `log` sees the build's progress. */
export async function snapChain(
  params: SnapChainParams,
  log: (message: string) => void,
  root = DEFAULT_FIXTURE_ROOT,
): Promise<SnapChain> {
  const dir = snapChainDir(params, root);
  const { ready, built } = await cachedBuild(dir, READY_FILE, (building) =>
    buildSnapChain(building, params, log),
  );
  if (!built) log(`    cached chain ${dir} (built in ${ready.buildSeconds.toFixed(0)} s)`);
  return { ...ready, dir, chainBytes: await directoryBytes(join(dir, 'chain')) };
}

/** A copy of `chain`'s data directory beside it for a node to run on (remove it when done). */
export async function copySnapChain(chain: SnapChain): Promise<string> {
  const dir = `${chain.dir}.run-${process.pid}-${Date.now()}`;
  await cp(chain.dir, dir, { recursive: true });
  await rm(join(dir, READY_FILE), { force: true });
  return dir;
}

function transferBody(hash160: Uint8Array, amount: bigint) {
  return { receiver: { hash160 }, amount, payloadType: 0, payload: new Uint8Array(0) };
}

/** Produces blocks of at most `perBlock` until nothing is pending; the operations they held. */
async function produceAll(chain: Chain, perBlock: number): Promise<number> {
  let operations = 0;
  while (chain.pendingCount() > 0) {
    const info = await chain.produceBlock(DEV_PRIVATE_KEY, { maxOperations: perBlock });
    operations += info?.operations ?? 0;
  }
  return operations;
}

async function buildSnapChain(
  dir: string,
  params: SnapChainParams,
  log: (message: string) => void,
): Promise<ReadyRecord> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  // The node's registry (tokens, tiers), as a node started on the directory opens it.
  const chain = createChain({
    dataDir: dir,
    genesis: createDevGenesis(),
    registry: createNodeRegistry(),
  });
  await chain.open();
  try {
    const prefix = chain.prefix;
    const dev = addressFromPublicKey(prefix, getPublicKey(DEV_PRIVATE_KEY));
    const senders = Array.from({ length: params.senders }, () => {
      const privateKey = randomPrivateKey();
      return { privateKey, address: addressFromPublicKey(prefix, getPublicKey(privateKey)) };
    });
    // Twice what a sender's transfers and fees take (each pays the act price).
    const perSender = BigInt(Math.ceil(params.accounts / params.senders) + 1);
    const funds = perSender * (chain.actPrice + snapChainAmount(996)) * 2n;
    await Promise.all(
      senders.map((sender) =>
        chain.signAndSubmit({
          optype: TRANSFER_OPTYPE,
          signer: dev,
          privateKey: DEV_PRIVATE_KEY,
          body: transferBody(decodeAddress(sender.address, prefix).hash160, funds),
        }),
      ),
    );
    let operations = await produceAll(chain, params.perBlock);
    await Promise.all(
      senders.map((sender) =>
        chain.signAndSubmit({
          optype: ACTIVATION_OPTYPE,
          signer: sender.address,
          privateKey: sender.privateKey,
          body: {},
        }),
      ),
    );
    operations += await produceAll(chain, params.perBlock);
    let nextReport = performance.now() + 15_000;
    for (let first = 0; first < params.accounts; first += params.perBlock) {
      const last = Math.min(params.accounts, first + params.perBlock);
      const submitted: Promise<unknown>[] = [];
      for (let n = first; n < last; n++) {
        const sender = senders[n % senders.length]!;
        submitted.push(
          chain.signAndSubmit({
            optype: TRANSFER_OPTYPE,
            signer: sender.address,
            privateKey: sender.privateKey,
            body: transferBody(snapChainHash160(n), snapChainAmount(n)),
          }),
        );
      }
      await Promise.all(submitted);
      const info = await chain.produceBlock(DEV_PRIVATE_KEY, { maxOperations: params.perBlock });
      if (info?.operations !== last - first) {
        throw new Error(
          `a transfer block holds ${info?.operations} operations, not ${last - first}`,
        );
      }
      operations += last - first;
      if (performance.now() >= nextReport) {
        log(
          `    chain: ${last.toLocaleString('en-US')} of ${params.accounts.toLocaleString('en-US')} transfers after ${seconds().toFixed(0)} s`,
        );
        nextReport = performance.now() + 15_000;
      }
    }
    for (const sender of senders) sender.privateKey.fill(0);
    const height = chain.blockCount() - 1;
    log(
      `    chain: ${height} blocks, ${operations.toLocaleString('en-US')} operations, built in ${seconds().toFixed(0)} s`,
    );
    return { ...params, height, operations, buildSeconds: seconds() };
  } finally {
    await chain.close();
  }
}
