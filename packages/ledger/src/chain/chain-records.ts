import { ErrorCode, LT_HASH_BYTES, LtHash } from '@chain/crypto';
import type { Block, BlockHeader } from '../block/block';
import { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { type InvalidBlockReason, LedgerError } from '../errors';
import type { Operation } from '../operation/operation';
import type { BlockChanges } from '../state/block-changes';
import type { StateKey } from '../state/state-delta';
import type { StateLayer } from '../state/state-layer';
import type { VerifiedAhead } from './import/verifier-pool';
import type { PendingEntry } from './mempool/mempool';

/**
 * What the chain modules pass between them: the head record, decoded blocks, executed blocks, and
 * the small encodings and errors several of them use.
 */

/** The committed head as stored under META_HEAD. */
export interface HeadState {
  height: number;
  hash: Uint8Array;
  timestamp: number;
  stateRoot: Uint8Array;
  /**
   * The state's LtHash vector, whose hash is `stateRoot` (state/state-lattice.ts): kept with the
   * head so that the next block moves it without a pass over the state. Never mutated.
   */
  stateVector: LtHash;
}

/** A block read back and decoded (block cache, queries, rollback). */
export interface LoadedBlock {
  block: Block;
  ops: Operation[];
  fees: bigint;
  zeroFee: number;
  /** What the block paid out (runBlockHooks); undefined when this node did not execute it. */
  reward?: bigint;
}

/** A block whose operations have been applied to a layer, ready to be committed. */
export interface ExecutedBlock {
  header: BlockHeader;
  headerBytes: Uint8Array;
  signature: Uint8Array;
  hash: Uint8Array;
  bytes: Uint8Array;
  ops: Operation[];
  layer: StateLayer;
  changes: BlockChanges;
  fees: bigint;
  zeroFee: number;
  /** What the block hooks paid out: subsidy and fees (runBlockHooks). */
  reward: bigint;
  /** The state vector after the block (its header's state root is its hash). */
  stateVector: LtHash;
  /** An imported block's: the key each operation's signature verified against. */
  verifiedKeys?: readonly (Uint8Array | undefined)[];
  /**
   * A block made from the pool: the entries that no longer applied, and the keys where the pool's
   * values are not the block's (the hooks', the dropped entries'). For any other block, every key
   * it wrote is such a key.
   */
  fromPool?: { dropped: readonly PendingEntry[]; dirty: Set<StateKey> };
}

/** A block queued for import, its signatures checked ahead (see verifyBlockAhead). */
export interface AheadBlock extends VerifiedAhead {
  block: Block;
  /** Its operations decoded ahead (undefined where one does not decode: the import says why). */
  ops: (Operation | undefined)[];
  /** The committed entries they read, being loaded (state-access.ts). */
  loaded: Promise<void>;
}

/** A block's reward as stored (`rewards` sublevel): its amount encoding (ByteWriter.amount). */
export function encodeReward(reward: bigint): Uint8Array {
  return new ByteWriter(33).amount(reward).finish();
}

export function decodeReward(bytes: Uint8Array): bigint {
  return new ByteReader(bytes).amount('reward');
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A block refused: its reason is one of the table's INVALID_BLOCK ones (@chain/spec). */
export function invalidBlock(
  reason: InvalidBlockReason,
  message: string,
  cause?: unknown,
): LedgerError {
  return new LedgerError(ErrorCode.INVALID_BLOCK, reason, message, {
    param: 'block',
    ...(cause === undefined ? {} : { cause }),
  });
}

export function notOpen(): LedgerError {
  return new LedgerError(ErrorCode.NOT_ALLOWED, 'CHAIN_CLOSED', 'the chain is not open');
}

/** `height u32le || hash 32 || timestamp u32le || stateRoot 32 || state vector 2048`. */
export function encodeHead(head: HeadState): Uint8Array {
  const out = new Uint8Array(HEAD_RECORD_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, head.height, true);
  out.set(head.hash, 4);
  view.setUint32(36, head.timestamp, true);
  out.set(head.stateRoot, 40);
  out.set(head.stateVector.toBytes(), 72);
  return out;
}

const HEAD_RECORD_BYTES = 72 + LT_HASH_BYTES;

export function decodeHead(bytes: Uint8Array): HeadState {
  if (bytes.length !== HEAD_RECORD_BYTES) throw new Error('bad head record');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    height: view.getUint32(0, true),
    hash: bytes.slice(4, 36),
    timestamp: view.getUint32(36, true),
    stateRoot: bytes.slice(40, 72),
    stateVector: LtHash.fromBytes(bytes.subarray(72)),
  };
}

export function feeSummary(ops: readonly Operation[]): { fees: bigint; zeroFee: number } {
  let fees = 0n;
  let zeroFee = 0;
  for (const op of ops) {
    fees += op.fee;
    if (op.fee === 0n) zeroFee++;
  }
  return { fees, zeroFee };
}

/** `height u32le || index u32le`. */
export function opLocation(height: number, index: number): Uint8Array {
  const out = new Uint8Array(8);
  out[0] = height;
  out[1] = height >>> 8;
  out[2] = height >>> 16;
  out[3] = height >>> 24;
  out[4] = index;
  out[5] = index >>> 8;
  out[6] = index >>> 16;
  out[7] = index >>> 24;
  return out;
}

/** Serialises the chain's state-changing tasks (produce, import, rollback). */
export class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
  idle(): Promise<unknown> {
    return this.tail;
  }
}
