import { decodeAddress, ErrorCode, normalizeAddress } from '@chain/crypto';
import { decodeOpHash, opHashIdentity } from '@chain/ophash';
import { decodeBlock } from '../../block/block';
import { LedgerError, StoreError } from '../../errors';
import { decodeOperation, type Operation } from '../../operation/operation';
import type { StateSpace } from '../../operation/registry';
import { lockedByTime, spendableAt } from '../../state/account';
import { hashKey } from '../../state/state-layer';
import { STEP_ITEMS } from '../../state/steps';
import type { ChainCore } from '../chain-core';
import { decodeReward, feeSummary, type LoadedBlock } from '../chain-records';
import type { AccountView, BlockPlacement, ChainHead } from '../chain-types';
import { TimeSlice } from '../execution/time-slice';
import {
  heightKey,
  operationKeyOfIdentity,
  operationKeyRange,
  readHeightKey,
} from '../storage/store';
import type { PresentationCore } from './chain-presentation';
import { addressOf, blockInfoOf, presentMined, presentPending } from './chain-presentation';
import {
  type BlockInfo,
  type OperationObject,
  presentWallet,
  type WalletInfo,
} from './presentation';

/** What reads of blocks, operations and state uses of the chain's core. */
export type QueriesCore = Pick<
  ChainCore,
  | 'blockCache'
  | 'blockDecodes'
  | 'inspected'
  | 'hashes'
  | 'headState'
  | 'headWeight'
  | 'historyFrom'
  | 'mempool'
  | 'prefix'
  | 'registry'
  | 'requireStore'
  | 'root'
> &
  PresentationCore;

/** Reads of the committed chain and of the mempool; nothing here changes state. */

export function headOf(core: QueriesCore): ChainHead {
  const { height, hash, timestamp } = core.headState;
  return { height, hash: hash.slice(), timestamp, weight: core.headWeight };
}

function checkHeight(core: QueriesCore, height: number): void {
  if (!Number.isInteger(height) || height < 0 || height > core.headState.height) {
    throw new LedgerError(
      ErrorCode.INVALID_BLOCK,
      'BLOCK_NOT_FOUND',
      `block ${String(height)} does not exist (blocks 0 to ${core.headState.height})`,
      { param: 'block' },
    );
  }
  if (height < core.historyFrom) throw beforeHistory(core, `block ${height}`);
}

/**
 * A block below the history of a node restored from a snapshot: said as such, never as missing or
 * empty (the block exists, this node does not hold it).
 */
function beforeHistory(core: QueriesCore, what: string): LedgerError {
  return new LedgerError(
    ErrorCode.INVALID_BLOCK,
    'BEFORE_HISTORY',
    `${what} is before this node's history: it was restored from a snapshot at block ${core.historyFrom} and holds blocks ${core.historyFrom} to ${core.headState.height}`,
    { param: 'block' },
  );
}

/** A block of the chain decoded, from the block cache or the store (and then cached). */
export async function loadBlock(core: QueriesCore, height: number): Promise<LoadedBlock> {
  const cached = core.blockCache.get(height);
  if (cached !== undefined) return cached;
  const store = core.requireStore();
  const bytes = await store.read(store.blocks, heightKey(height));
  if (bytes === undefined) {
    throw new StoreError(ErrorCode.INVALID_DATA, 'CORRUPT_DATADIR', `block ${height} is missing`);
  }
  return core.blockDecodes.run(() => decodeStoredBlock(core, height, bytes));
}

/**
 * A stored block decoded (one at a time: `blockDecodes`), its operations in steps that give the
 * event loop back: a block of 10,000 operations takes about 50 ms to decode.
 */
async function decodeStoredBlock(
  core: QueriesCore,
  height: number,
  bytes: Uint8Array,
): Promise<LoadedBlock> {
  const decodedMeanwhile = core.blockCache.get(height);
  if (decodedMeanwhile !== undefined) return decodedMeanwhile;
  const block = decodeBlock(bytes, core.hashes);
  const slice = new TimeSlice();
  const ops: Operation[] = new Array(block.operations.length);
  for (let i = 0; i < ops.length; i++) {
    if (i % STEP_ITEMS === 0) await slice.pause();
    ops[i] = decodeOperation(block.operations[i]!, core.registry, core.hashes, true);
  }
  const loaded: LoadedBlock = { block, ops, ...feeSummary(ops) };
  core.blockCache.set(height, loaded);
  return loaded;
}

export async function heightOfHash(
  core: QueriesCore,
  hash: Uint8Array,
): Promise<number | undefined> {
  const store = core.requireStore();
  const value = await store.read(store.hashes, hash);
  return value === undefined ? undefined : readHeightKey(value);
}

export function inspectBlock(core: QueriesCore, bytes: Uint8Array): BlockPlacement {
  const block = decodeBlock(bytes, core.hashes);
  // A block inspected is usually imported next (gossip, sync): the import takes this decoding.
  core.inspected.set(bytes, block);
  const { header, hash } = block;
  return {
    height: header.height,
    hash,
    prevHash: header.prevHash,
    producer: header.producer,
    timestamp: header.timestamp,
  };
}

export async function blockInfo(core: QueriesCore, height: number): Promise<BlockInfo> {
  core.requireStore();
  checkHeight(core, height);
  // The reward is read before the block: nothing is awaited between decoding a block the cache
  // does not hold and presenting it, so the calls of a batch hold one decoded block at a time. Read
  // after it, a batch of 100 getBlockInfo over blocks of 10,000 held them all at once and took the
  // node past its heap budget (issue 44, the burst bench's check of what was mined).
  const reward = core.blockCache.get(height)?.reward ?? (await storedReward(core, height));
  const loaded = await loadBlock(core, height);
  loaded.reward ??= reward;
  return blockInfoOf(core, loaded);
}

/** A block by its hash; BLOCK_NOT_FOUND naming `hash` when no block of this chain has it. */
export async function blockInfoByHash(core: QueriesCore, hash: Uint8Array): Promise<BlockInfo> {
  const height = await heightOfHash(core, hash);
  // A header below a restored snapshot is indexed by hash too: its block is before the history.
  if (height === undefined || height > core.headState.height) {
    throw new LedgerError(
      ErrorCode.INVALID_BLOCK,
      'BLOCK_NOT_FOUND',
      `no block of this chain has the hash ${Buffer.from(hash).toString('hex')}`,
      { param: 'hash' },
    );
  }
  return blockInfo(core, height);
}

/**
 * What a block paid out, as recorded when it was executed here (undefined below a snapshot). Read
 * for getBlockInfo only, so that reading a block's operations costs one database read, as before.
 */
async function storedReward(core: QueriesCore, height: number): Promise<bigint | undefined> {
  const store = core.requireStore();
  const bytes = await store.read(store.rewards, heightKey(height));
  return bytes === undefined ? undefined : decodeReward(bytes);
}

/** Positions of a block's operations: `from` inclusive, `to` exclusive (past the end: the end). */
export interface OperationRange {
  from: number;
  to: number;
}

export async function blockOperations(
  core: QueriesCore,
  height: number,
  range?: OperationRange,
): Promise<OperationObject[]> {
  core.requireStore();
  checkHeight(core, height);
  const loaded = await loadBlock(core, height);
  if (range === undefined)
    return loaded.ops.map((op, index) => presentMined(core, loaded, op, index));
  const from = Math.max(0, range.from);
  return loaded.ops
    .slice(from, Math.max(from, range.to))
    .map((op, i) => presentMined(core, loaded, op, from + i));
}

/**
 * A signer's operation by its n_operation, pending or mined ([] when it has none): what a client
 * whose reply was lost looks up before signing again (docs/integration.md).
 */
export async function findByNOperation(
  core: QueriesCore,
  address: string,
  nOperation: number,
): Promise<OperationObject[]> {
  const store = core.requireStore();
  const number = core.root.numberOf(decodeAddress(address, core.prefix, 'wallet').hash160);
  if (number === undefined) return [];
  let index = 0;
  for (const entry of core.mempool.entries.values()) {
    if (entry.signer === number && entry.op.nOperation === nOperation) {
      return [presentPending(core, entry, index)];
    }
    index++;
  }
  // The operation index is keyed `signer || n_operation || digest` (operationKey): a range.
  const range = operationKeyRange(number, nOperation);
  for await (const location of store.opIndex.values({ ...range, limit: 1 })) {
    const view = new DataView(location.buffer, location.byteOffset, location.byteLength);
    const height = view.getUint32(0, true);
    const opIndex = view.getUint32(4, true);
    if (height > core.headState.height) return [];
    const loaded = await loadBlock(core, height);
    const op = loaded.ops[opIndex];
    return op === undefined ? [] : [presentMined(core, loaded, op, opIndex)];
  }
  return [];
}

export async function findOperation(core: QueriesCore, ophash: string): Promise<OperationObject[]> {
  const store = core.requireStore();
  const parts = decodeOpHash(ophash, 'ophash');
  const identity = opHashIdentity(parts);
  const pending = core.mempool.byOpHash(parts.account, parts.nOperation, hashKey(parts.digest));
  if (pending !== undefined) {
    let index = 0;
    for (const entry of core.mempool.entries.values()) {
      if (entry === pending) break;
      index++;
    }
    return [presentPending(core, pending, index)];
  }
  const location = await store.read(store.opIndex, operationKeyOfIdentity(identity));
  if (location === undefined) {
    if (mayBeBeforeHistory(core, ophash)) throw beforeHistory(core, `operation ${ophash}`);
    return [];
  }
  const view = new DataView(location.buffer, location.byteOffset, location.byteLength);
  const height = view.getUint32(0, true);
  const index = view.getUint32(4, true);
  if (height > core.headState.height) return [];
  const loaded = await loadBlock(core, height);
  const op = loaded.ops[index];
  return op === undefined ? [] : [presentMined(core, loaded, op, index)];
}

/**
 * Whether an operation not found may be in the blocks a restored node does not hold: its ophash
 * names a block below the history start, and its signer exists and has signed that many operations.
 */
function mayBeBeforeHistory(core: QueriesCore, ophash: string): boolean {
  if (core.historyFrom === 0) return false;
  const { block, account, nOperation } = decodeOpHash(ophash, 'ophash');
  const signer = core.root.account(account);
  return block < core.historyFrom && signer !== undefined && nOperation <= signer.nOperation;
}

export function pendingOperations(core: QueriesCore): OperationObject[] {
  const out: OperationObject[] = [];
  let index = 0;
  for (const entry of core.mempool.entries.values()) out.push(presentPending(core, entry, index++));
  return out;
}

/** Bytes of pending operations in mempool order (at most `max`). */
export function pendingOperationBytes(core: QueriesCore, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const entry of core.mempool.entries.values()) {
    if (out.length >= max) break;
    out.push(entry.op.bytes);
  }
  return out;
}

export function walletInfo(core: QueriesCore, address: string): WalletInfo {
  const { hash160: h } = decodeAddress(address, core.prefix, 'wallet');
  const number = core.root.numberOf(h);
  const account = number === undefined ? undefined : core.root.account(number);
  const info = presentWallet(normalizeAddress(address), account, core.headState.height);
  // The pending state holds the wallet's operations waiting for a block (their n_operations).
  const pending = number === undefined ? undefined : core.mempool.layer.account(number);
  return { ...info, n_operation_pending: pending?.nOperation ?? info.n_operation };
}

export function accountByNumber(core: QueriesCore, number: number): AccountView | undefined {
  const a = core.root.account(number);
  if (a === undefined) return undefined;
  const height = core.headState.height;
  return {
    number: a.number,
    address: addressOf(core, a.number, core.root),
    hash160: a.hash160.slice(),
    publicKey: a.publicKey?.slice() ?? null,
    active: a.publicKey !== null,
    balance: a.balance,
    spendable: spendableAt(a, height),
    volumeLock: a.volumeLock,
    volumeTimelock: lockedByTime(a, height),
    timelocks: a.timelocks.map((t) => ({ ...t })),
    nOperation: a.nOperation,
    updatedActive: a.updatedActive,
    updatedPassive: a.updatedPassive,
    lastZeroFeeBlock: a.lastZeroFeeBlock,
  };
}

export function accountByAddress(core: QueriesCore, address: string): AccountView | undefined {
  const number = core.root.numberOf(decodeAddress(address, core.prefix, 'wallet').hash160);
  return number === undefined ? undefined : accountByNumber(core, number);
}

export function stateEntry<T>(
  core: QueriesCore,
  space: StateSpace<T>,
  key: string,
  options: { pending?: boolean },
): T | undefined {
  if (core.registry.space(space.name) !== (space as unknown)) {
    throw new LedgerError(
      ErrorCode.NOT_ALLOWED,
      'UNREGISTERED_SPACE',
      `state space ${space.name} is not registered with the chain's registry`,
    );
  }
  const state = options.pending === true ? core.mempool.layer : core.root;
  const value = state.spaceGet(space.name, key) as T | undefined;
  return value === undefined ? undefined : space.clone(value);
}
