import type { LtHash } from '@chain/crypto';
import type { ProducerKey } from '../../block/block';
import type { Operation } from '../../operation/operation';
import type { BlockHookInfo, BlockStartState, StateSpace } from '../../operation/registry';
import { type ApplyEnv, LayerContext } from '../../state/apply-context';
import { type BlockChanges, collectChangesPaused } from '../../state/block-changes';
import { carriedProducers } from '../../state/producer-list';
import { forEachWrittenKey, type StateKey } from '../../state/state-delta';
import { stateRootOf } from '../../state/state-lattice';
import type { StateLayer } from '../../state/state-layer';
import type { ChainCore } from '../chain-core';
import { feeSummary } from '../chain-records';
import type { TimeSlice } from './time-slice';

/**
 * The tail every block's execution shares, produced or imported: once its operations are in its
 * layer, the fees, the block hooks (rewards), the changes, the state vector and root, and the
 * producer set it leaves. Import checks the header against it; production writes the header from it.
 */

/** What settling a block's body uses of the chain's core. */
export type BlockBodyCore = Pick<ChainCore, 'hashes' | 'lattice' | 'registry'>;

/** A block's body once its operations applied: what the header states and the commit writes. */
export interface SettledBody {
  fees: bigint;
  zeroFee: number;
  /** What the block hooks paid out (subsidy and fees, whoever received them). */
  reward: bigint;
  changes: BlockChanges;
  stateVector: LtHash;
  stateRoot: Uint8Array;
  /** The producer set the header carries (empty when the block left it unchanged). */
  producers: ProducerKey[];
  /** The keys the block hooks wrote. */
  hookKeys: Set<StateKey>;
}

export async function settleBody(
  core: BlockBodyCore,
  layer: StateLayer,
  env: ApplyEnv,
  block: { producer: number; ops: readonly Operation[]; before: LtHash },
  slice: TimeSlice,
): Promise<SettledBody> {
  const { fees, zeroFee } = feeSummary(block.ops);
  const { reward, hookKeys } = runBlockHooks(core, layer, env, {
    height: env.height,
    timestamp: env.timestamp,
    producer: block.producer,
    fees,
    operations: block.ops.length,
  });
  await slice.pause();
  const changes = await collectChangesPaused(layer, core.registry, slice.pause);
  const stateVector = await core.lattice.applyPaused(block.before, changes, slice.pause);
  return {
    fees,
    zeroFee,
    reward,
    changes,
    stateVector,
    stateRoot: stateRootOf(stateVector, core.hashes),
    producers: carriedProducers(layer, changes.producers !== undefined),
    hookKeys,
  };
}

/** The block hooks' context, which adds up what they credit: the block's reward. */
class PayoutContext extends LayerContext {
  paid = 0n;

  override credit(number: number, amount: bigint): void {
    super.credit(number, amount);
    this.paid += amount;
  }
}

/**
 * Rewards: the registered hooks, or by default the fees to the producer's account. Returns what
 * they paid out (subsidy and fees, whoever received them), which getBlockInfo shows as the block's
 * reward: measured, not worked out again, so it is what the rules in force did to this block. They
 * run in a layer of their own, merged after: the block's layer may hold the pool's values, which
 * are shared and never edited in place.
 */
function runBlockHooks(
  core: BlockBodyCore,
  layer: StateLayer,
  env: ApplyEnv,
  info: BlockHookInfo,
): { reward: bigint; hookKeys: Set<StateKey> } {
  const hooks = core.registry.hooks();
  const own = layer.child();
  const ctx = new PayoutContext(own, env, -1);
  if (hooks.length === 0) {
    if (info.fees > 0n) ctx.credit(info.producer, info.fees);
  } else {
    const start = blockStartState(layer.parent);
    for (const hook of hooks) hook.afterOperations(ctx, info, start);
  }
  const hookKeys = new Set<StateKey>();
  forEachWrittenKey(own, (key) => hookKeys.add(key));
  own.mergeIntoParent();
  return { reward: ctx.paid, hookKeys };
}

/** The state under a block's layer: its parent's, which the block's operations did not touch. */
function blockStartState(before: StateLayer['parent']): BlockStartState {
  return {
    get<T>(space: StateSpace<T>, key: string): T | undefined {
      const value = before?.spaceGet(space.name, key) as T | undefined;
      return value === undefined ? undefined : space.clone(value);
    },
  };
}
