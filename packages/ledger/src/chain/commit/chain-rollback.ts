import { ErrorCode, equalBytes } from '@chain/crypto';
import { StoreError } from '../../errors';
import type { Operation } from '../../operation/operation';
import { encodeAccount } from '../../state/account';
import { decodeUndo } from '../../state/block-changes';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  stateRootOf,
} from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { encodeHead, type HeadState, identityOf, invalidBlock, nowSeconds } from '../chain-records';
import type { ReorganizeResult } from '../chain-types';
import { indexBlock, keysOfOperation } from '../history/history-index';
import type { ImportCore } from '../import/block-import';
import { executeImported } from '../import/block-import';
import { notifyReturned } from '../mempool/mempool-admission';
import type { PendingCandidate } from '../mempool/pool-execution';
import type { QueriesCore } from '../state/chain-queries';
import { headOf, loadBlock } from '../state/chain-queries';
import {
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  encodeProducerList,
  PRODUCERS_KEY,
  spaceChecksumKey,
} from '../storage/state-checksum';
import {
  heightKey,
  META_HEAD,
  META_PRODUCERS,
  META_STATE_CHECKSUM,
  operationKey,
  spaceKey,
} from '../storage/store';
import type { CommitCore } from './block-commit';
import { adoptCommitted, commitBlock } from './block-commit';

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
  return core.tasks.run(async () => {
    core.requireStore();
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
    let failure: unknown;
    try {
      for (const bytes of blocks) {
        await commitBlock(core, await executeImported(core, bytes), 'imported');
      }
    } catch (error) {
      failure = error;
    }
    const adopted =
      failure === undefined &&
      core.clique.prefers({ weight: core.headWeight, hash: core.headState.hash }, oldTip);
    if (!adopted) {
      await rollbackTo(core, forkHeight);
      for (const bytes of ours) {
        await commitBlock(core, await executeImported(core, bytes), 'imported');
      }
    }
    notifyReturned(core, returned);
    if (failure !== undefined) throw failure;
    if (adopted) core.notifyEach(core.reorgListeners, old.height - forkHeight);
    return { adopted, head: headOf(core) };
  });
}

/**
 * Undoes the blocks above `toHeight` in one batch (run inside a task); their operations go back to
 * the mempool, and are returned.
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
  // The inverse of each block's move: the value now removed, the value before added.
  const added: Uint8Array[] = [];
  const removed: Uint8Array[] = [];
  const undos = [];
  const returned: Operation[][] = [];
  let removedWeight = 0;
  let producersAfter: readonly number[] = root.producers();
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
    const undo = decodeUndo(undoBytes);
    undos.push(undo);
    const producersBefore = undo.producers ?? producersAfter;
    removedWeight += await core.clique.weightOf(producersBefore, h, loaded.block.header.producer);
    producersAfter = producersBefore;
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
  // Undo newest first, tracking what each entry currently holds for the checksum.
  const accountNow = new Map<number, Uint8Array | undefined>();
  const spaceNow = new Map<string, Uint8Array | undefined>();
  let producersNow: number[] | undefined;
  for (const undo of undos) {
    for (const a of undo.accounts) accountNow.set(a.number, a.before);
    for (const s of undo.spaces) spaceNow.set(spaceKey(s.space, s.key), s.before);
    if (undo.producers !== undefined) producersNow = undo.producers;
  }
  const removedHashes: Uint8Array[] = [];
  let nextNumber = root.nextNumber;
  for (const [number, before] of accountNow) {
    const current = root.account(number);
    const currentBytes = current === undefined ? undefined : encodeAccount(current);
    checksum.replace(ENTRY_ACCOUNT, heightKey(number), currentBytes, before);
    if (currentBytes !== undefined) removed.push(encodeAccountEntry(number, currentBytes));
    if (before !== undefined) added.push(encodeAccountEntry(number, before));
    if (before === undefined) {
      batch.del(heightKey(number), { sublevel: store.accounts });
      // Accounts are numbered in order: those the blocks created are the last ones.
      nextNumber = Math.min(nextNumber, number);
      if (current !== undefined) {
        batch.del(current.hash160, { sublevel: store.addresses });
        removedHashes.push(current.hash160);
      }
    } else batch.put(heightKey(number), before, { sublevel: store.accounts });
  }
  for (const [key, before] of spaceNow) {
    const split = key.indexOf('\u0000');
    const space = core.registry.space(key.slice(0, split))!;
    const entryKey = key.slice(split + 1);
    const current = root.spaceGet(space.name, entryKey);
    const currentBytes = current === undefined ? undefined : space.encode(current);
    checksum.replace(ENTRY_SPACE, spaceChecksumKey(key), currentBytes, before);
    if (currentBytes !== undefined) {
      removed.push(encodeSpaceEntry(space.name, entryKey, currentBytes));
    }
    if (before !== undefined) added.push(encodeSpaceEntry(space.name, entryKey, before));
    if (before === undefined) batch.del(key, { sublevel: store.spaces });
    else batch.put(key, before, { sublevel: store.spaces });
  }
  if (producersNow !== undefined) {
    const after = encodeProducerList(producersNow);
    const current = encodeProducerList(root.producers());
    checksum.replace(ENTRY_PRODUCERS, PRODUCERS_KEY, current, after);
    removed.push(encodeProducersEntry(current));
    added.push(encodeProducersEntry(after));
    batch.put(META_PRODUCERS, after, { sublevel: store.meta });
  }
  const vector = head.stateVector.copy().update(added, removed, core.hashes);
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
    identity: identityOf(op),
    arrival: nowSeconds(),
    signer: op.signer,
    publicKey: new Uint8Array(0),
    journal: record,
    // Set when rebuildPending applies it.
    bytes: 0,
  }));
  core.operationTally.add(-returnedOps.length, batch, store);
  await store.commit(batch);

  // Memory follows the disk: what the caches hold of the restored entries is forgotten.
  for (const number of accountNow.keys()) {
    if (number >= nextNumber) core.addressCache.delete(number);
  }
  root.rolledBack(accountNow.keys(), removedHashes, spaceNow.keys(), nextNumber, producersNow);
  for (let h = head.height; h > toHeight; h--) core.blockCache.delete(h);
  core.clique.rolledBack(head.height, toHeight);
  adoptCommitted(core, newHead, checksum, newWeight, { returned: returnedEntries });
  return returnedOps;
}
