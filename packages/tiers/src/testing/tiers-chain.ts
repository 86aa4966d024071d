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
import {
  type Chain,
  createChain,
  createDevGenesis,
  createRegistry,
  DEV_PRIVATE_KEY,
  type Genesis,
  inTurnKey,
  type OperationObject,
} from '@chain/ledger';
import { PARTICIPATION_OPTYPES, type ParticipationStep } from '../operation/optypes';
import { registerTiers } from '../register';

export const COIN = 10n ** 18n;

export interface TestWallet {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  hash160: Uint8Array;
}

/** A deterministic wallet (key = sha256 of a label) on the dev prefix. */
export function testWallet(label: string): TestWallet {
  return walletOf(sha256(utf8ToBytes(`tiers test wallet ${label}`)));
}

function walletOf(privateKey: Uint8Array): TestWallet {
  const publicKey = getPublicKey(privateKey);
  const address = addressFromPublicKey('CH', publicKey);
  return { privateKey, publicKey, address, hash160: decodeAddress(address).hash160 };
}

export const dev = walletOf(DEV_PRIVATE_KEY);

export interface TiersChain {
  chain: Chain;
  genesis: Genesis;
  dir: string;
  /** Closes the chain and removes its directory. */
  cleanup(): Promise<void>;
  /** Signs and submits one participation step. */
  step(step: ParticipationStep, signer: TestWallet, body: unknown): Promise<OperationObject>;
  /** Transfers coins from the dev wallet. */
  pay(to: TestWallet, amount: bigint): Promise<OperationObject>;
  /** Funds and activates wallets (one block). */
  fund(wallets: readonly TestWallet[], amount: bigint): Promise<void>;
  /** Keys that `block()` may sign with (the dev key first; add mine wallets' keys). */
  producerKeys: Uint8Array[];
  /**
   * Produces a block with `producerKey`, or by default with the key in turn (Clique rotation);
   * fails when nothing is pending.
   */
  block(producerKey?: Uint8Array): Promise<number>;
  /** Produces filler blocks (a coin to `to` each) until `producerKey` is in turn. */
  untilTurnOf(producerKey: Uint8Array, to: TestWallet): Promise<void>;
}

/** A chain with participation registered, on a fresh temp dir, with dev params overridden. */
export async function openTiersChain(
  params: Genesis['params'] = {},
  dir?: string,
): Promise<TiersChain> {
  const dataDir = dir ?? (await mkdtemp(join(tmpdir(), 'tiers-test-')));
  const base = createDevGenesis();
  const genesis = createDevGenesis({ params: { ...base.params, ...params } });
  const registry = createRegistry();
  registerTiers(registry);
  const chain = createChain({ dataDir, genesis, registry, verifyThreads: 0 });
  await chain.open();
  const pay = (to: TestWallet, amount: bigint) =>
    chain.signAndSubmit({
      optype: 2,
      signer: dev.address,
      privateKey: dev.privateKey,
      body: {
        receiver: { hash160: to.hash160 },
        amount,
        payloadType: 0,
        payload: new Uint8Array(),
      },
    });
  const producerKeys = [dev.privateKey];
  const block = async (producerKey?: Uint8Array) => {
    const key = producerKey ?? inTurnKey(chain, producerKeys);
    if (key === undefined) throw new Error('no producer key is in turn');
    const info = await chain.produceBlock(key);
    if (info === undefined) throw new Error('no block was produced');
    return info.block;
  };
  return {
    chain,
    genesis,
    dir: dataDir,
    async cleanup() {
      await chain.close();
      if (dir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
    step(step, signer, body) {
      return chain.signAndSubmit({
        ...PARTICIPATION_OPTYPES[step],
        signer: signer.address,
        privateKey: signer.privateKey,
        body,
      });
    },
    pay,
    async fund(wallets, amount) {
      for (const w of wallets) await pay(w, amount);
      for (const w of wallets) {
        await chain.signAndSubmit({
          optype: 5,
          signer: w.address,
          privateKey: w.privateKey,
          body: {},
        });
      }
      await block();
    },
    producerKeys,
    block,
    async untilTurnOf(producerKey, to) {
      while (inTurnKey(chain, producerKeys) !== producerKey) {
        await pay(to, 1n);
        await block();
      }
    },
  };
}
