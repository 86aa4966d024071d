import { equalBytes } from '@chain/crypto';
import { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';

/** Stake or reward held back until a block height (matured entries are pruned when touched). */
export interface Timelock {
  amount: bigint;
  untilBlock: number;
}

/** A numbered account: an address seen on chain, its balance and its signing history. */
export interface Account {
  readonly number: number;
  readonly hash160: Uint8Array;
  /** Compressed public key once activated; null while the account has only received. */
  publicKey: Uint8Array | null;
  balance: bigint;
  nOperation: number;
  /** Volume locked by participation (stake). */
  volumeLock: bigint;
  timelocks: Timelock[];
  /** Height of the last block holding an operation this account signed. */
  updatedActive: number;
  /** Height of the last block in which this account received something. */
  updatedPassive: number;
  /** Height of the block holding this account's last zero-fee operation; -1 when never. */
  lastZeroFeeBlock: number;
}

/** Marker in the persisted encoding for "never" (lastZeroFeeBlock = -1). */
const NEVER = 0xffffffff;

/**
 * Where account hashes live: 20-byte views into shared slabs rather than an array of their own
 * each (a Uint8Array with its own buffer costs about 100 bytes more; the state holds one per
 * account, for as long as the account exists).
 */
const HASH_SLAB_BYTES = 20 * 1024;
let hashSlab = new Uint8Array(HASH_SLAB_BYTES);
let hashSlabUsed = 0;

/** A copy of a 20-byte account hash, in a slab. */
export function copyAccountHash(hash160: Uint8Array): Uint8Array {
  if (hashSlabUsed + hash160.length > HASH_SLAB_BYTES) {
    hashSlab = new Uint8Array(HASH_SLAB_BYTES);
    hashSlabUsed = 0;
  }
  const copy = hashSlab.subarray(hashSlabUsed, hashSlabUsed + hash160.length);
  copy.set(hash160);
  hashSlabUsed += hash160.length;
  return copy;
}

export function newAccount(number: number, hash160: Uint8Array): Account {
  return {
    number,
    hash160,
    publicKey: null,
    balance: 0n,
    nOperation: 0,
    volumeLock: 0n,
    timelocks: [],
    updatedActive: 0,
    updatedPassive: 0,
    lastZeroFeeBlock: -1,
  };
}

/** A copy to edit (every field listed: a spread makes V8 build the object the slow way). */
export function cloneAccount(a: Account): Account {
  return {
    number: a.number,
    hash160: a.hash160,
    publicKey: a.publicKey,
    balance: a.balance,
    nOperation: a.nOperation,
    volumeLock: a.volumeLock,
    timelocks: a.timelocks.length === 0 ? [] : a.timelocks.map((t) => ({ ...t })),
    updatedActive: a.updatedActive,
    updatedPassive: a.updatedPassive,
    lastZeroFeeBlock: a.lastZeroFeeBlock,
  };
}

/** Same bytes, or both null (keys and hashes: equal content, whether or not the same array). */
function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === b) return true;
  return a !== null && b !== null && equalBytes(a, b);
}

/** Whether two accounts hold the same values: what encodeAccount writes, field by field. */
export function sameAccount(a: Readonly<Account>, b: Readonly<Account>): boolean {
  if (a === b) return true;
  if (
    a.number !== b.number ||
    a.balance !== b.balance ||
    a.nOperation !== b.nOperation ||
    a.volumeLock !== b.volumeLock ||
    a.updatedActive !== b.updatedActive ||
    a.updatedPassive !== b.updatedPassive ||
    a.lastZeroFeeBlock !== b.lastZeroFeeBlock ||
    a.timelocks.length !== b.timelocks.length ||
    !sameBytes(a.hash160, b.hash160) ||
    !sameBytes(a.publicKey, b.publicKey)
  ) {
    return false;
  }
  for (let i = 0; i < a.timelocks.length; i++) {
    const x = a.timelocks[i]!;
    const y = b.timelocks[i]!;
    if (x.amount !== y.amount || x.untilBlock !== y.untilBlock) return false;
  }
  return true;
}

/** Sum of the timelocks still locked at `height`. */
export function lockedByTime(a: Readonly<Account>, height: number): bigint {
  let sum = 0n;
  for (const t of a.timelocks) if (t.untilBlock > height) sum += t.amount;
  return sum;
}

/** What the account can pay at `height`: balance less stake and unmatured timelocks. */
export function spendableAt(a: Readonly<Account>, height: number): bigint {
  const free = a.balance - a.volumeLock - lockedByTime(a, height);
  return free > 0n ? free : 0n;
}

/**
 * Canonical account encoding (persisted, and hashed into the state root):
 * `hash160 20 || u8 hasKey || [publicKey 33] || balance amount || nOperation u32 || volumeLock amount ||
 *  u16 count || (amount || untilBlock u32)* || updatedActive u32 || updatedPassive u32 ||
 *  lastZeroFeeBlock u32 (0xFFFFFFFF = never)`.
 */
export function encodeAccount(a: Readonly<Account>): Uint8Array {
  return ByteWriter.encode(writeAccount, a);
}

function writeAccount(w: ByteWriter, a: Readonly<Account>): void {
  w.bytes(a.hash160);
  if (a.publicKey === null) w.u8(0);
  else w.u8(1).bytes(a.publicKey);
  w.amount(a.balance).u32(a.nOperation).amount(a.volumeLock);
  w.u16(a.timelocks.length);
  for (const t of a.timelocks) w.amount(t.amount).u32(t.untilBlock);
  w.u32(a.updatedActive).u32(a.updatedPassive);
  w.u32(a.lastZeroFeeBlock < 0 ? NEVER : a.lastZeroFeeBlock);
}

export function decodeAccount(number: number, bytes: Uint8Array): Account {
  const r = new ByteReader(bytes);
  const hash160 = copyAccountHash(r.bytesView(20, 'account hash160'));
  const publicKey = r.u8('account key flag') === 1 ? r.bytesCopy(33, 'account public key') : null;
  const balance = r.amount('account balance');
  const nOperation = r.u32('account n_operation');
  const volumeLock = r.amount('account volume lock');
  const count = r.u16('account timelock count');
  const timelocks: Timelock[] = [];
  for (let i = 0; i < count; i++) {
    timelocks.push({ amount: r.amount('timelock amount'), untilBlock: r.u32('timelock height') });
  }
  const updatedActive = r.u32('account updated_active');
  const updatedPassive = r.u32('account updated_passive');
  const zero = r.u32('account zero-fee block');
  r.end('account');
  return {
    number,
    hash160,
    publicKey,
    balance,
    nOperation,
    volumeLock,
    timelocks,
    updatedActive,
    updatedPassive,
    lastZeroFeeBlock: zero === NEVER ? -1 : zero,
  };
}
