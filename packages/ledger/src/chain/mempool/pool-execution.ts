import type { Operation } from '../../operation/operation';
import type { OperationType } from '../../operation/registry';
import type { ApplyEnv } from '../../state/apply-context';
import { applyOperation } from '../../state/apply-operation';
import type { StateDelta, StateKey } from '../../state/state-delta';
import type { StateLayer } from '../../state/state-layer';
import { STEP_ITEMS } from '../../state/steps';
import type { TimeSlice } from '../execution/time-slice';
import type { JournalRecord } from '../storage/journal';
import { Mempool, ownStateEntries, type PendingEntry, pendingEntryBytes } from './mempool';
import type { AdmissionCore } from './mempool-admission';

/**
 * Apply-once (docs/decisions.md, "Apply once, and the re-check rule"): each admitted operation is applied once, to
 * the pending layer, and keeps what it did (its StateDelta). A block made from the pool takes the
 * deltas of a prefix of it instead of applying the operations again; what stays pending is still
 * valid on the new head, so nothing is rebuilt. Only a change of the state that the pool did not
 * make (a peer's block, the block's rewards, an entry dropped) has pending operations checked
 * again: those that read or wrote a key it changed, and, in order, those that read what they
 * wrote.
 */

/** The record applyOperation keeps for the pool. */
const RECORD = { record: true } as const;

/** Entries between two looks at the time slice (an entry applied again is tens of us). */
const RECHECK_STEP = 64;

/** Applies a pending operation to `layer` (the pending layer), keeping its delta. */
export function applyPending(
  core: AdmissionCore,
  layer: StateLayer,
  env: ApplyEnv,
  op: Operation,
  type: OperationType,
): { signer: number; publicKey: Uint8Array; delta: StateDelta } {
  const applied = applyOperation(layer, env, op, type, core.checkSignature, RECORD);
  return { signer: applied.signer, publicKey: applied.publicKey, delta: applied.delta! };
}

/** Entries of a block made from the pool, and the state keys where the block is not the pool. */
export interface PoolBlock {
  included: PendingEntry[];
  dropped: PendingEntry[];
  /**
   * Keys the pool's own values may disagree with once the block commits: those the dropped entries
   * wrote (the block has not got them) and, after the block hooks, those the hooks wrote.
   */
  dirty: Set<StateKey>;
}

/**
 * Fills `layer` (a child of the committed state, for a block at the pool's height) from the pool
 * in order, up to `limit` operations. An entry admitted on this committed state, that read nothing
 * an earlier entry of the block changed differently from the pool and nothing of the block's
 * surroundings, is merged from its delta; any other is applied again (an entry carried over from
 * an earlier block, one that reads the timestamp, one behind an entry that changed): the block is
 * the one a full re-execution makes.
 */
export async function fillFromPool(
  core: AdmissionCore,
  layer: StateLayer,
  env: ApplyEnv,
  limit: number,
  slice: TimeSlice,
): Promise<PoolBlock> {
  const included: PendingEntry[] = [];
  const dropped: PendingEntry[] = [];
  const dirty = new Set<StateKey>();
  /** Keys where the block's value is not the pool's (an entry applied again wrote another). */
  const changed = new Set<StateKey>();
  const revision = core.revision;
  let seen = 0;
  // Entries admitted during a pause join the end of the pool: the iteration takes them in order.
  for (const entry of core.mempool.entries.values()) {
    if (included.length >= limit) break;
    if (++seen % RECHECK_STEP === 0) await slice.pause();
    const delta = entry.delta;
    if (entry.revision === revision && !delta.readBlockEnv && !delta.touchesAny(changed)) {
      delta.mergeInto(layer);
      delta.forEachWritten((key) => changed.delete(key));
      included.push(entry);
      core.mempool.applyOnce.merged++;
      continue;
    }
    core.mempool.applyOnce.reapplied++;
    try {
      const again = applyOperation(layer, env, entry.op, entry.type, core.checkSignature, RECORD);
      noteReapplied(changed, again.delta!, delta);
      included.push(entry);
    } catch {
      dropped.push(entry);
      delta.forEachWritten((key) => {
        changed.add(key);
        dirty.add(key);
      });
    }
  }
  return { included, dropped, dirty };
}

/**
 * After an entry was applied again into the block (`block`, what it did there; `pool`, what it did
 * at admission): a key either wrote is `changed` unless both wrote the same value there, in which
 * case the block and the pool agree on it again, whatever the entries before made of it. An entry
 * carried over from an earlier block writes its signer with the earlier height (updated_b): the
 * next entry of that signer, admitted on the new head, is applied again and writes the account as
 * the block does, so the entries behind it merge instead of every one of them being applied again.
 */
function noteReapplied(changed: Set<StateKey>, block: StateDelta, pool: StateDelta): void {
  pool.forEachWritten((key) => changed.add(key));
  block.forEachWritten((key) => {
    if (block.wroteSame(pool, key)) changed.delete(key);
    else changed.add(key);
  });
}

/**
 * After a block committed: its operations leave the pool, the values they left in the pending layer
 * with them (the committed state has them now), and the entries that read or wrote a key in
 * `dirty` are checked again (recheck). The entries the block `dropped` leave too, their journal
 * records with them; the pending layer is then made again without their values.
 *
 * In steps (`slice`: a follower's re-check costs in proportion to the pool, 350 ms at 20,000
 * pending in one pass), admission held back meanwhile (Mempool.holdAdmission): the committed state
 * is the new head's already, and an operation admitted on a pending layer half settled would be
 * checked against neither the old pool nor the new one. Readers meanwhile see the pool as the block
 * left it: the entries not re-checked yet with their values, on the new head.
 */
export function settlePool(
  core: AdmissionCore,
  included: readonly PendingEntry[],
  dropped: readonly PendingEntry[],
  dirty: Set<StateKey>,
  slice: TimeSlice,
): Promise<void> {
  return core.mempool.holdAdmission(async () => {
    const mempool = core.mempool;
    for (let i = 0; i < included.length; i++) {
      if (i % STEP_ITEMS === STEP_ITEMS - 1) await slice.pause();
      mempool.remove(included[i]!.key);
    }
    const records: JournalRecord[] = [];
    for (const entry of dropped) {
      if (mempool.remove(entry.key) === undefined) continue;
      if (entry.journal !== undefined) records.push(entry.journal);
    }
    if (records.length > 0) void core.journal?.release(records).catch(() => undefined);
    if (mempool.size === 0) {
      mempool.drain(core.root);
      return;
    }
    // A re-check makes the pending layer again: the included entries' values go with the old one.
    if (dropped.length > 0 || (await mempool.touchesAny(dirty, slice.pause))) {
      await recheck(core, dirty, slice);
      return;
    }
    for (let i = 0; i < included.length; i++) {
      if (i % STEP_ITEMS === STEP_ITEMS - 1) await slice.pause();
      included[i]!.delta.removeFrom(mempool.layer);
    }
    // Below the committed state's only when the block made accounts the pool did not (a peer's):
    // then no pending entry makes one, or the recheck above ran.
    mempool.layer.nextNumber = Math.max(mempool.layer.nextNumber, core.root.nextNumber);
  });
}

/**
 * The pending layer made again on the committed state: an entry that read or wrote a key in
 * `dirty` is applied again (and what it writes is dirty in turn), any other is merged from its
 * delta. An entry no longer valid is dropped, its journal record with it. Built beside the pool
 * and put in its place at the end; the caller holds admission back (Mempool.holdAdmission).
 */
async function recheck(core: AdmissionCore, dirty: Set<StateKey>, slice: TimeSlice): Promise<void> {
  const mempool = core.mempool;
  const next = new Mempool(core.root);
  const layer = next.layer;
  const env = core.pendingEnv();
  const stale: JournalRecord[] = [];
  let seen = 0;
  for (const entry of mempool.entries.values()) {
    if (++seen % RECHECK_STEP === 0) await slice.pause();
    const delta = entry.delta;
    if (!delta.touchesAny(dirty)) {
      delta.mergeInto(layer);
      delta.forEachWritten((key) => dirty.delete(key));
      next.insert(entry);
      continue;
    }
    delta.forEachWritten((key) => dirty.add(key));
    mempool.applyOnce.rechecked++;
    if (!reapply(core, layer, env, entry)) {
      if (entry.journal !== undefined) stale.push(entry.journal);
      continue;
    }
    entry.delta.forEachWritten((key) => dirty.add(key));
    next.insert(entry);
  }
  mempool.adopt(next);
  if (stale.length > 0) void core.journal?.release(stale).catch(() => undefined);
}

/** Applies `entry` again to the pending layer; false when it no longer applies. */
function reapply(
  core: AdmissionCore,
  layer: StateLayer,
  env: ApplyEnv,
  entry: PendingCandidate,
): boolean {
  try {
    const entriesBefore = ownStateEntries(layer);
    const applied = applyPending(core, layer, env, entry.op, entry.type);
    entry.signer = applied.signer;
    entry.publicKey = applied.publicKey;
    entry.delta = applied.delta;
    entry.revision = core.revision;
    entry.bytes = pendingEntryBytes(entry.op, ownStateEntries(layer) - entriesBefore);
    return true;
  } catch {
    return false;
  }
}

/** An entry to admit again from scratch (a rolled-back block's operation, the journal at open). */
export type PendingCandidate = Omit<PendingEntry, 'delta' | 'revision'> & Partial<PendingEntry>;

/**
 * The pool made again from scratch on the committed state (after a rollback, `returned` ahead of
 * what was pending): every entry applied again, in order; the invalid ones dropped.
 */
export function rebuildPending(core: AdmissionCore, entries: readonly PendingCandidate[]): void {
  const mempool = core.mempool;
  const env = core.pendingEnv();
  const stale: JournalRecord[] = [];
  for (const entry of entries) {
    if (mempool.entries.has(entry.key)) continue;
    if (reapply(core, mempool.layer, env, entry)) mempool.insert(entry as PendingEntry);
    else if (entry.journal !== undefined) stale.push(entry.journal);
  }
  if (stale.length > 0) void core.journal?.release(stale).catch(() => undefined);
}

/**
 * Removes entries (and their journal records). Their values leave the pending layer by a recheck
 * (what they wrote is dirty): the layer cannot tell an earlier entry's value under theirs. In
 * steps, admission held back meanwhile (as settlePool).
 */
export function dropEntries(
  core: AdmissionCore,
  entries: readonly PendingEntry[],
  slice: TimeSlice,
): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  return core.mempool.holdAdmission(async () => {
    const records: JournalRecord[] = [];
    const dirty = new Set<StateKey>();
    for (const entry of entries) {
      if (core.mempool.remove(entry.key) === undefined) continue;
      entry.delta.forEachWritten((key) => dirty.add(key));
      if (entry.journal !== undefined) records.push(entry.journal);
    }
    if (core.mempool.size === 0) core.mempool.drain(core.root);
    else await recheck(core, dirty, slice);
    void core.journal?.release(records).catch(() => undefined);
  });
}
