import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  decodeAddress,
  getPublicKey,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import { type Chain, type ChainOptions, createChain } from '../chain/chain';
import { createDevGenesis, DEV_PRIVATE_KEY } from '../genesis';
import { ACTIVATION_OPTYPE } from '../operation/activation-codec';
import type { StateSpace } from '../operation/registry';
import type { TransferBody } from '../operation/transfer-codec';
import { transferRequest } from '../operation/typed-request';

/**
 * Test-only: a real chain on a temp dir and deterministic wallets to drive it. Shared by the tests of
 * the ledger and of the packages that plug into it (`@chain/ledger/testing`); nothing here is used at
 * run time.
 */

export const COIN = 10n ** 18n;

/** A state space of unsigned 32-bit values (big-endian), for tests whose blocks write entries. */
export function u32Space(name: string): StateSpace<number> {
  return {
    name,
    encode: (v) => Uint8Array.of(v >>> 24, v >>> 16, v >>> 8, v),
    decode: (b) => new DataView(b.buffer, b.byteOffset, 4).getUint32(0, false),
    clone: (v) => v,
  };
}

export interface TestWallet {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  hash160: Uint8Array;
}

/** What signing an operation needs of a wallet. */
export type SigningWallet = Pick<TestWallet, 'privateKey' | 'address'>;

/** The wallet of a private key, its address on `prefix`. */
export function walletFromKey(privateKey: Uint8Array, prefix = 'CH'): TestWallet {
  const publicKey = getPublicKey(privateKey);
  const address = addressFromPublicKey(prefix, publicKey);
  return { privateKey, publicKey, address, hash160: decodeAddress(address).hash160 };
}

/**
 * A deterministic wallet: its key is sha256 of `"<namespace> test wallet <label>"`. Each package keeps
 * its own namespace, so a label names the same key in that package's tests whoever else uses it.
 */
export function namespacedWallet(namespace: string, label: string, prefix = 'CH'): TestWallet {
  return walletFromKey(sha256(utf8ToBytes(`${namespace} test wallet ${label}`)), prefix);
}

/** A deterministic wallet in the ledger's own namespace. */
export function testWallet(label: string, prefix = 'CH'): TestWallet {
  return namespacedWallet('ledger', label, prefix);
}

/** The dev genesis's producer and holder of the whole supply. */
export const devWallet: TestWallet = walletFromKey(DEV_PRIVATE_KEY);

export async function makeTempDir(
  prefix = 'ledger-test-',
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface TempChainOptions extends Partial<ChainOptions> {
  /** Name prefix of the temp dir, to tell whose leftovers are whose (default `ledger-test-`). */
  dirPrefix?: string;
}

export interface TempChain {
  chain: Chain;
  dir: string;
  /** Closes the chain, then removes its dir unless the caller gave `dataDir`. */
  cleanup: () => Promise<void>;
}

/**
 * Opens a chain on the dev genesis, on a fresh temp dir unless `dataDir` is given; the other options
 * go to `createChain` as they are.
 */
export async function openTempChain(options: TempChainOptions = {}): Promise<TempChain> {
  const { dirPrefix, dataDir, ...chainOptions } = options;
  const temp = dataDir === undefined ? await makeTempDir(dirPrefix) : undefined;
  const dir = dataDir ?? temp!.dir;
  const chain = createChain({ dataDir: dir, genesis: createDevGenesis(), ...chainOptions });
  await chain.open();
  return {
    chain,
    dir,
    cleanup: async () => {
      await chain.close();
      await temp?.remove();
    },
  };
}

/** A transfer body to an address (the sendTo form). */
export function transferTo(
  address: string,
  amount: bigint,
  payload = new Uint8Array(0),
): TransferBody {
  return {
    receiver: { hash160: decodeAddress(address).hash160 },
    amount,
    payloadType: 0,
    payload,
  };
}

/** Submits a transfer from the dev wallet (it stays pending). */
export function payFromDev(chain: Chain, address: string, amount: bigint) {
  return chain.signAndSubmit(
    transferRequest(
      { signer: devWallet.address, privateKey: devWallet.privateKey },
      transferTo(address, amount),
    ),
  );
}

/** Produces a block with the dev key. */
export function mine(chain: Chain) {
  return chain.produceBlock(devWallet.privateKey);
}

/** Produces `count` blocks of one dev-wallet transfer to `receiver` each; their bytes. */
export async function produceTransferBlocks(
  chain: Chain,
  count: number,
  receiver: string,
): Promise<Uint8Array[]> {
  const first = chain.blockCount();
  for (let i = 0; i < count; i++) {
    await payFromDev(chain, receiver, 1n);
    await mine(chain);
  }
  const blocks: Uint8Array[] = [];
  for (let h = first; h < chain.blockCount(); h++) blocks.push((await chain.getBlockBytes(h))!);
  return blocks;
}

/** Imports `blocks` as a syncing node does (importBlocks: a window in flight); throws the refusal. */
export async function importQueued(chain: Chain, blocks: readonly Uint8Array[]): Promise<void> {
  const run = await chain.importBlocks(blocks);
  if (run.refused !== undefined) throw run.refused.error;
}

/**
 * Submits, without producing a block, a transfer of `amount` from the dev wallet to each wallet and
 * then each wallet's activation.
 */
export async function submitFundAndActivate(
  chain: Chain,
  wallets: readonly SigningWallet[],
  amount: bigint,
): Promise<void> {
  for (const wallet of wallets) await payFromDev(chain, wallet.address, amount);
  for (const wallet of wallets) {
    await chain.signAndSubmit({
      // signAndSubmit puts the signer's public key in an activation body that has none.
      optype: ACTIVATION_OPTYPE,
      signer: wallet.address,
      privateKey: wallet.privateKey,
      body: {},
    });
  }
}

/** Funds and activates wallets from the dev wallet, in one block produced with the dev key. */
export async function fundAndActivate(
  chain: Chain,
  wallets: SigningWallet | readonly SigningWallet[],
  amount: bigint,
): Promise<void> {
  await submitFundAndActivate(chain, 'address' in wallets ? [wallets] : wallets, amount);
  await mine(chain);
}
