import { type BlockChanges, encodeUndo } from '../../state/block-changes';
import { forEachWrittenKey, type StateKey } from '../../state/state-delta';
import { type Pause, runSteps, runStepsPaused, STEP_ITEMS } from '../../state/steps';
import type { ChainCore } from '../chain-core';
import {
  type ExecutedBlock,
  encodeHead,
  encodeReward,
  type HeadState,
  type LoadedBlock,
  opLocation,
} from '../chain-records';
import type { BlockOrigin } from '../chain-types';
import { TimeSlice } from '../execution/time-slice';
import { indexBlock, keysOfOperation } from '../history/history-index';
import type { PendingEntry } from '../mempool/mempool';
import type { AdmissionCore } from '../mempool/mempool-admission';
import { type PendingCandidate, rebuildPending, settlePool } from '../mempool/pool-execution';
import type { PresentationCore } from '../state/chain-presentation';
import { blockInfoOf, presentMined } from '../state/chain-presentation';
import type { BlockInfo } from '../state/presentation';
import type { JournalRecord } from '../storage/journal';
import {
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  encodeProducerList,
  PRODUCERS_KEY,
  type StateChecksum,
  spaceChecksumKey,
} from '../storage/state-checksum';
import {
  type ChainBatch,
  heightKey,
  META_HEAD,
  META_PRODUCERS,
  META_STATE_CHECKSUM,
  operationIndexKey,
  spaceKey,
} from '../storage/store';

/** What a commit uses of the chain's core. */
export type CommitCore = Pick<
  ChainCore,
  | 'blockCache'
  | 'checksum'
  | 'clique'
  | 'headState'
  | 'hashes'
  | 'headWeight'
  | 'historyIndex'
  | 'journal'
  | 'maxRollback'
  | 'operationTally'
  | 'mempool'
  | 'notifyBlock'
  | 'registry'
  | 'requireStore'
  | 'revision'
  | 'root'
  | 'sigCache'
  | 'store'
  | 'verifier'
> &
  PresentationCore &
  AdmissionCore;

/**
 * Commit: a block's changes written to disk in one batch, then applied to memory; and the one
 * in-memory update that follows every state change on disk (genesis, open, commit, rollback).
 */

/**
 * Puts a state change into `batch` and updates `checksum` accordingly: a block's changes when it
 * commits, their inverse when it is rolled back (the only change that removes accounts, and their
 * addresses with them).
 */
export function writeChanges(
  core: Pick<CommitCore, 'store'>,
  batch: ChainBatch,
  changes: BlockChanges,
  checksum: StateChecksum,
): void {
  runSteps(writeChangeSteps(core, batch, changes, checksum));
}

/** writeChanges with `pause()` between steps (a block's commit). */
function writeChangesPaused(
  core: Pick<CommitCore, 'store'>,
  batch: ChainBatch,
  changes: BlockChanges,
  checksum: StateChecksum,
  pause: Pause,
): Promise<void> {
  return runStepsPaused(writeChangeSteps(core, batch, changes, checksum), pause);
}

function* writeChangeSteps(
  core: Pick<CommitCore, 'store'>,
  batch: ChainBatch,
  changes: BlockChanges,
  checksum: StateChecksum,
): Generator<void, void> {
  const store = core.store!;
  let written = 0;
  for (const a of changes.accounts) {
    const key = heightKey(a.number);
    if (a.afterBytes === undefined) {
      batch.del(key, { sublevel: store.accounts });
      batch.del(a.hash160, { sublevel: store.addresses });
    } else {
      batch.put(key, a.afterBytes, { sublevel: store.accounts });
      if (a.before === undefined) batch.put(a.hash160, key, { sublevel: store.addresses });
    }
    checksum.replace(ENTRY_ACCOUNT, key, a.before, a.afterBytes);
    if (++written % STEP_ITEMS === 0) yield;
  }
  for (const s of changes.spaces) {
    const key = spaceKey(s.space, s.key);
    if (s.afterBytes === undefined) batch.del(key, { sublevel: store.spaces });
    else batch.put(key, s.afterBytes, { sublevel: store.spaces });
    checksum.replace(ENTRY_SPACE, spaceChecksumKey(key), s.before, s.afterBytes);
    if (++written % STEP_ITEMS === 0) yield;
  }
  if (changes.producers !== undefined) {
    const after = encodeProducerList(changes.producers.after);
    batch.put(META_PRODUCERS, after, { sublevel: store.meta });
    checksum.replace(
      ENTRY_PRODUCERS,
      PRODUCERS_KEY,
      encodeProducerList(changes.producers.before),
      after,
    );
  }
}

/** What a state change does to the pool (adoptCommitted). */
type PoolChange =
  /** A block committed: its entries leave, and those that read a `dirty` key are checked again. */
  | { included: readonly PendingEntry[]; dropped: readonly PendingEntry[]; dirty: Set<StateKey> }
  /** Every pending entry applied again, `returned` (a rolled-back block's) ahead of them. */
  | { returned: readonly PendingCandidate[] };

/**
 * Memory after a state change reached the disk (genesis, open, block committed, rollback): head,
 * state checksum and weight move together and the revision with them; then the pool follows
 * (`pool`). The committed state layer itself is updated by the caller before. Resolves once the
 * pool settled (at once but for a block's commit).
 */
export function adoptCommitted(
  core: CommitCore,
  head: HeadState,
  checksum: StateChecksum,
  weight: number,
  pool: PoolChange = { returned: [] },
  slice = new TimeSlice(),
): Promise<void> {
  core.checksum = checksum;
  core.headState = head;
  core.revision++;
  core.headWeight = weight;
  // A block's pool settles in steps, admission held back meanwhile (settlePool); the rebuild
  // after a rollback or at open is one pass (rare; the pool is returned to as it was).
  if ('included' in pool) return settlePool(core, pool.included, pool.dropped, pool.dirty, slice);
  const existing = core.mempool.drain(core.root);
  rebuildPending(core, [...pool.returned, ...existing]);
  return Promise.resolve();
}

/** The state keys a block wrote: where a peer's block may disagree with the pool. */
function writtenKeys(executed: ExecutedBlock): Set<StateKey> {
  const keys = new Set<StateKey>();
  forEachWrittenKey(executed.layer, (key) => keys.add(key));
  return keys;
}

/**
 * A block of an import run (importBlocks) is written without its own fsync while more blocks wait
 * behind it (`queued`): the last in the window, one every DURABLE_IMPORT_EVERY blocks, and the
 * run's end make them all durable at once. A power loss can then take back only blocks that peers
 * hold (the node syncs them again); a crash of the process loses nothing, and a produced block is
 * always synced before anyone hears of it.
 */
export const DURABLE_IMPORT_EVERY = 256;

function isDurableCommit(origin: BlockOrigin, height: number, queued: boolean): boolean {
  return origin !== 'imported' || !queued || height % DURABLE_IMPORT_EVERY === 0;
}

interface CommittedBlock {
  info: BlockInfo;
  /** Resolves once the block is on disk (already, unless it was written behind). */
  written: Promise<void>;
}

/**
 * One atomic batch, synced (see isDurableCommit): block, hash and operation indexes, state
 * changes, undo data, journal deletions, head. Memory (state, mempool, head) changes only after it
 * is written, except for an imported block with others `queued` behind it in its run, not synced:
 * memory takes it at once and the next block applies while the disk catches up (the store's group
 * commit writes the blocks of a sync a few at a time; its reads wait for the writes:
 * ChainStore.commit).
 */
export async function commitBlock(
  core: CommitCore,
  executed: ExecutedBlock,
  origin: BlockOrigin,
  queued = false,
  slice = new TimeSlice(),
): Promise<CommittedBlock> {
  const store = core.requireStore();
  const { header, ops } = executed;
  const height = header.height;
  // Weighed under the producer set in force before the block (the layer is not merged yet).
  const weight =
    core.headWeight + (await core.clique.weightOf(core.root.producers(), height, header.producer));
  const durable = isDurableCommit(origin, height, queued);
  const behind = queued && !durable;
  const batch = store.batch(behind);
  core.clique.writeWeight(batch, store, weight);
  batch.put(heightKey(height), executed.bytes, { sublevel: store.blocks });
  batch.put(executed.hash, heightKey(height), { sublevel: store.hashes });
  // The batch is built in steps, giving the event loop back between them (TimeSlice): nothing
  // else commits meanwhile (the chain's tasks run one at a time), and admissions only add entries.
  for (let i = 0; i < ops.length; i++) {
    if (i % STEP_ITEMS === STEP_ITEMS - 1) await slice.pause();
    const op = ops[i]!;
    const key = operationIndexKey(store.opIndex, op.signer, op.nOperation, op.digestHex);
    batch.putPrefixed(key, opLocation(height, i));
  }
  await slice.pause();
  batch.put(heightKey(height), encodeUndo(executed.changes), { sublevel: store.undo });
  batch.put(heightKey(height), encodeReward(executed.reward), { sublevel: store.rewards });
  if (core.historyIndex) {
    const layer = executed.layer;
    const resolve = (hash: Uint8Array) => layer.numberOf(hash);
    for (let first = 0; first < ops.length; first += STEP_ITEMS) {
      const keys = ops
        .slice(first, first + STEP_ITEMS)
        .map((op) => keysOfOperation(core.registry, core.hashes, op, resolve));
      indexBlock(batch, store, keys, height, false, first);
      await slice.pause();
    }
  }
  if (height - core.maxRollback >= 1) {
    batch.del(heightKey(height - core.maxRollback), { sublevel: store.undo });
  }
  const checksum = core.checksum.copy();
  await writeChangesPaused(core, batch, executed.changes, checksum, slice.pause);
  await slice.pause();
  const mempool = core.mempool;
  const included: PendingEntry[] = [];
  const released = new Map<JournalRecord, number>();
  for (const op of ops) {
    const entry = mempool.entries.get(op.digestHex);
    if (entry === undefined) continue;
    included.push(entry);
    if (entry.journal !== undefined) {
      released.set(entry.journal, (released.get(entry.journal) ?? 0) + 1);
    }
  }
  const afterRelease = core.journal!.releaseIn(batch, released);
  const head: HeadState = {
    height,
    hash: executed.hash,
    timestamp: header.timestamp,
    stateRoot: header.stateRoot,
    stateVector: executed.stateVector,
  };
  batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
  batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
  core.operationTally.add(ops.length, batch, store);
  const written = store.commit(batch, durable, behind);
  if (!behind) {
    // Blocks queued behind this one are being checked: help rather than wait for the disk.
    await (queued ? core.verifier.helpWhile(written) : written);
  }

  afterRelease();
  core.root.commit(executed.layer, behind ? written : undefined);
  core.clique.committed(height, header.producer);
  await adoptCommitted(
    core,
    head,
    checksum,
    weight,
    {
      included,
      dropped: executed.fromPool?.dropped ?? [],
      dirty: executed.fromPool?.dirty ?? writtenKeys(executed),
    },
    slice,
  );
  const loaded: LoadedBlock = {
    block: {
      header,
      headerBytes: executed.headerBytes,
      signature: executed.signature,
      hash: executed.hash,
      operations: ops.map((op) => op.bytes),
      bytes: executed.bytes,
    },
    ops,
    fees: executed.fees,
    zeroFee: executed.zeroFee,
    reward: executed.reward,
  };
  // A block with others queued behind it is part of a sync: keeping its decoded operations or
  // their signature checks would only keep them alive past the collector's young generation,
  // blocks after blocks. A block near the tip is kept, and its checks too: a reorganisation
  // returning its operations to the mempool does not verify them again.
  if (!queued) {
    core.blockCache.set(height, loaded);
    executed.verifiedKeys?.forEach((key, i) => {
      if (key !== undefined) core.sigCache.add(ops[i]!.digestHex, key);
    });
  }
  core.sigCache.mined(
    height,
    ops.map((op) => op.digestHex),
  );
  const info = blockInfoOf(core, loaded);
  core.notifyBlock(
    info,
    origin,
    () => ops.map((op, index) => presentMined(core, loaded, op, index)),
    ops.map((op) => op.optype),
    executed.bytes,
  );
  return { info, written };
}
