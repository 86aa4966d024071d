import {
  type Chain,
  createDevGenesis,
  createRegistry,
  type Genesis,
  inTurnKey,
  type OperationObject,
} from '@chain/ledger';
import {
  devWallet,
  namespacedWallet,
  openTempChain,
  payFromDev,
  submitFundAndActivate,
  type TestWallet,
} from '@chain/ledger/testing';
import { PARTICIPATION_OPTYPES, type ParticipationStep } from '../operation/optypes';
import { registerTiers } from '../register';

/**
 * Test-only: a real chain with participation registered, driven by producer rotation. The temp
 * chain, wallets and funding come from `@chain/ledger/testing`.
 */

/** A deterministic wallet in the tiers namespace (its key: sha256 of "tiers test wallet <label>"). */
export function testWallet(label: string): TestWallet {
  return namespacedWallet('tiers', label);
}

export interface TiersChain {
  chain: Chain;
  genesis: Genesis;
  dir: string;
  /** Closes the chain and removes its directory (unless `openTiersChain` was given one). */
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

/** A chain with participation registered, on `dir` or a fresh temp dir, with dev params overridden. */
export async function openTiersChain(
  params: Genesis['params'] = {},
  dir?: string,
): Promise<TiersChain> {
  const base = createDevGenesis();
  const genesis = createDevGenesis({ params: { ...base.params, ...params } });
  const registry = createRegistry();
  registerTiers(registry);
  const {
    chain,
    dir: dataDir,
    cleanup,
  } = await openTempChain({
    genesis,
    registry,
    verifyThreads: 0,
    dirPrefix: 'tiers-test-',
    ...(dir === undefined ? {} : { dataDir: dir }),
  });
  const pay = (to: TestWallet, amount: bigint) => payFromDev(chain, to.address, amount);
  const producerKeys = [devWallet.privateKey];
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
    cleanup,
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
      await submitFundAndActivate(chain, wallets, amount);
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
