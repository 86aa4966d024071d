import { performance } from 'node:perf_hooks';
import { ErrorCode, equalBytes } from '@chain/crypto';
import { StoreError } from '../../errors';
import type { Operation } from '../../operation/operation';
import type { OperationRegistry } from '../../operation/registry';
import { encodeAccount } from '../../state/account';
import {
  type BlockChanges,
  changesOfUndo,
  decodeUndo,
  type StateAfter,
} from '../../state/block-changes';
import type { CommittedState } from '../../state/committed-state';
import { stateRootOf } from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { encodeHead, type HeadState, invalidBlock, nowSeconds } from '../chain-records';
import type { ReorganizeResult } from '../chain-types';
import { indexBlock, keysOfOperation } from '../history/history-index';
import type { ImportCore } from '../import/block-import';
import { importBranch } from '../import/import-run';
import { notifyReturned } from '../mempool/mempool-admission';
import type { PendingCandidate } from '../mempool/pool-execution';
import type { QueriesCore } from '../state/chain-queries';
import { headOf, loadBlock } from '../state/chain-queries';
import {
  heightKey,
  META_HEAD,
  META_STATE_CHECKSUM,
  operationKey,
  spaceKey,
} from '../storage/store';
import type { CommitCore } from './block-commit';
import { adoptCommitted, writeChanges } from './block-commit';

/** What rollback and reorganisation uses of the chain's core. */
type RollbackCore = Pick<
  ChainCore,
  | 'addressCache'
  | 'blockCache'
  | 'checksum'
  | 'clique'
  | 'headState'
  | 'historyFrom'
  | 'headWeight'
  | 'journal'
  | 'maxRollback'
  | 'operationTally'
  | 'notifyEach'
  | 'registry'
  | 'reorgListeners'
  | 'requireStore'
  | 'root'
  | 'rollbacks'
  | 'tasks'
> &
  CommitCore &
  ImportCore &
  QueriesCore;

/** Rollback (blocks undone from their undo data) and reorganisation (fork choice against a branch). */

export function rollback(core: RollbackCore, toHeight: number): Promise<void> {
  core.requireStore();
  return core.tasks.run(async () => {
    notifyReturned(core, await rollbackTo(core, toHeight));
  });
}

export function reorganize(
  core: RollbackCore,
  forkHeight: number,
  blocks: readonly Uint8Array[],
): Promise<ReorganizeResult> {
  core.requireStore();
  const queued = performance.now();
  return core.tasks.run(async () => {
    core.requireStore();
    const turn = performance.now();
    const old = core.headState;
    const oldTip = { weight: core.headWeight, hash: old.hash };
    if (!Number.isInteger(forkHeight) || forkHeight < 0 || forkHeight >= old.height) {
      throw invalidBlock(
        'BAD_FORK_POINT',
        `a branch must fork below the head (height ${old.height}), not after ${String(forkHeight)}`,
      );
    }
    const ours: Uint8Array[] = [];
    for (let h = forkHeight + 1; h <= old.height; h++) {
      ours.push((await loadBlock(core, h)).block.bytes);
    }
    const returned = await rollbackTo(core, forkHeight);
    const rolledBack = performance.now();
    let failure: unknown;
    let adopted = false;
    try {
      try {
        // As an import run imports (importBranch: decoded, loaded and signatures checked ahead on
        // the verifier threads while the blocks before apply; each but the last written without
        // its own fsync, made durable together by syncWrites below: a crash between them leaves a
        // chain that is one of the two, which the node syncs again). Block by block, a heal's
        // branch of ~38 small blocks took about 1 s on the 7-node lab (issue 43, session 25).
        await importBranch(core, blocks);
      } catch (error) {
        failure = error;
      }
      adopted =
        failure === undefined &&
        core.clique.prefers({ weight: core.headWeight, hash: core.headState.hash }, oldTip);
      if (!adopted) {
        await rollbackTo(core, forkHeight);
        await importBranch(core, ours);
      }
    } finally {
      if (core.closing === undefined) await core.requireStore().syncWrites();
    }
    notifyReturned(core, returned);
    if (failure !== undefined) throw failure;
    if (adopted) core.notifyEach(core.reorgListeners, old.height - forkHeight);
    const timings = {
      waitMs: Math.round(turn - queued),
      rollbackMs: Math.round(rolledBack - turn),
      branchMs: Math.round(performance.now() - rolledBack),
    };
    return { adopted, head: headOf(core), timings };
  });
}

/**
 * The committed state as the inverses written so far into a rollback's batch leave it (memory
 * takes them once the batch is on disk): what each block below left, for its own inverse.
 */
class StateBeingUndone implements StateAfter {
  readonly accounts = new Map<number, Uint8Array | undefined>();
  /** By the store's space key. */
  readonly spaces = new Map<string, Uint8Array | undefined>();
  /** The addresses of the accounts removed. */
  readonly removedHashes = new Map<number, Uint8Array>();
  producerList: number[] | undefined;

  constructor(
    private readonly root: CommittedState,
    private readonly registry: OperationRegistry,
  ) {}

  accountBytes(number: number): Uint8Array | undefined {
    if (this.accounts.has(number)) return this.accounts.get(number);
    const account = this.root.account(number);
    return account === undefined ? undefined : encodeAccount(account);
  }

  spaceBytes(space: string, key: string): Uint8Array | undefined {
    const full = spaceKey(space, key);
    if (this.spaces.has(full)) return this.spaces.get(full);
    const value = this.root.spaceGet(space, key);
    return value === undefined ? undefined : this.registry.space(space)!.encode(value);
  }

  producers(): readonly number[] {
    return this.producerList ?? this.root.producers();
  }

  take(changes: BlockChanges): void {
    for (const a of changes.accounts) {
      this.accounts.set(a.number, a.afterBytes);
      if (a.afterBytes === undefined) this.removedHashes.set(a.number, a.hash160);
      else this.removedHashes.delete(a.number);
    }
    for (const s of changes.spaces) this.spaces.set(spaceKey(s.space, s.key), s.afterBytes);
    if (changes.producers !== undefined) this.producerList = changes.producers.after;
  }

  /** The number the next new account gets: accounts are numbered in order, those removed were the last. */
  nextNumber(): number {
    let next = this.root.nextNumber;
    for (const number of this.removedHashes.keys()) next = Math.min(next, number);
    return next;
  }
}

/**
 * Undoes the blocks above `toHeight` in one batch (run inside a task): each block's change, from
 * its undo record and the state it left, is written inverted, newest first, through the same write
 * as a commit (writeChanges, the state vector moved by it); its block, indexes and undo record go.
 * Their operations go back to the mempool, and are returned.
 */
async function rollbackTo(core: RollbackCore, toHeight: number): Promise<Operation[]> {
  const store = core.requireStore();
  const head = core.headState;
  if (!Number.isInteger(toHeight) || toHeight > head.height || toHeight < 0) {
    throw invalidBlock('BAD_ROLLBACK', `cannot roll back to block ${String(toHeight)}`);
  }
  if (toHeight === head.height) return [];
  if (toHeight < core.historyFrom) {
    throw invalidBlock(
      'ROLLBACK_TOO_DEEP',
      `cannot roll back below block ${core.historyFrom}, where this node's history starts (it was restored from a snapshot)`,
    );
  }
  if (head.height - toHeight > core.maxRollback) {
    throw invalidBlock(
      'ROLLBACK_TOO_DEEP',
      `cannot roll back more than ${core.maxRollback} blocks (asked ${head.height - toHeight})`,
    );
  }
  const root = core.root;
  const batch = store.batch();
  const checksum = core.checksum.copy();
  const state = new StateBeingUndone(root, core.registry);
  let vector = head.stateVector;
  const returned: Operation[][] = [];
  let removedWeight = 0;
  for (let h = head.height; h > toHeight; h--) {
    const loaded = await loadBlock(core, h);
    const undoBytes = await store.read(store.undo, heightKey(h));
    if (undoBytes === undefined) {
      throw new StoreError(
        ErrorCode.INVALID_DATA,
        'CORRUPT_DATADIR',
        `undo data of block ${h} is missing`,
      );
    }
    const inverse = changesOfUndo(decodeUndo(undoBytes), state).inverse();
    writeChanges(core, batch, inverse, checksum);
    vector = core.lattice.apply(vector, inverse);
    state.take(inverse);
    // Weighed under the producer set in force before the block: the one its inverse leaves.
    removedWeight += await core.clique.weightOf(state.producers(), h, loaded.block.header.producer);
    returned.unshift(loaded.ops);
    batch.del(heightKey(h), { sublevel: store.blocks });
    batch.del(loaded.block.hash, { sublevel: store.hashes });
    batch.del(heightKey(h), { sublevel: store.undo });
    batch.del(heightKey(h), { sublevel: store.rewards });
    for (const op of loaded.ops) {
      batch.del(operationKey(op.signer, op.nOperation, op.digestHex), { sublevel: store.opIndex });
    }
    // The accounts these blocks created are still in memory: their numbers resolve.
    const resolve = (hash: Uint8Array) => root.numberOf(hash);
    const keys = loaded.ops.map((op) => keysOfOperation(core.registry, core.hashes, op, resolve));
    indexBlock(batch, store, keys, h, true);
  }
  const target = await loadBlock(core, toHeight);
  if (!equalBytes(stateRootOf(vector, core.hashes), target.block.header.stateRoot)) {
    throw new StoreError(
      ErrorCode.INVALID_DATA,
      'CORRUPT_DATADIR',
      `the undo data above block ${toHeight} does not restore its state root`,
    );
  }
  const newHead: HeadState = {
    height: toHeight,
    hash: target.block.hash,
    timestamp: target.block.header.timestamp,
    stateRoot: target.block.header.stateRoot,
    stateVector: vector,
  };
  const newWeight = core.headWeight - removedWeight;
  batch.put(META_HEAD, encodeHead(newHead), { sublevel: store.meta });
  core.clique.writeWeight(batch, store, newWeight);
  batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
  // The rolled-back operations go back to the mempool; journal them so a crash keeps them.
  const returnedOps = returned.flat();
  const record =
    returnedOps.length > 0
      ? core.journal!.writeIn(
          batch,
          returnedOps.map((op) => op.bytes),
        )
      : undefined;
  const returnedEntries: PendingCandidate[] = returnedOps.map((op) => ({
    op,
    type: core.registry.get(op.optype, op.subtype)!,
    key: op.digestHex,
    arrival: nowSeconds(),
    signer: op.signer,
    publicKey: new Uint8Array(0),
    journal: record,
    // Set when rebuildPending applies it.
    bytes: 0,
  }));
  core.operationTally.add(-returnedOps.length, batch, store);
  core.rollbacks++;
  try {
    await store.commit(batch);
    followRollback(core, state, head.height, toHeight);
    adoptCommitted(core, newHead, checksum, newWeight, { returned: returnedEntries });
  } finally {
    core.rollbacks++;
  }
  return returnedOps;
}

/** Memory follows the disk: what the caches hold of the restored entries is forgotten. */
function followRollback(
  core: RollbackCore,
  state: StateBeingUndone,
  fromHeight: number,
  toHeight: number,
): void {
  const nextNumber = state.nextNumber();
  for (const number of state.removedHashes.keys()) core.addressCache.delete(number);
  core.root.rolledBack(
    state.accounts.keys(),
    state.removedHashes.values(),
    state.spaces.keys(),
    nextNumber,
    state.producerList,
  );
  for (let h = fromHeight; h > toHeight; h--) core.blockCache.delete(h);
  core.clique.rolledBack(fromHeight, toHeight);
}
