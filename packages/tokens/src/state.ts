import { bytesToHex } from '@chain/crypto';
import { ByteReader, ByteWriter, DecodeError, type StateSpace } from '@chain/ledger';

/** "No holder" in the holder list's links (account numbers are below 2^32 - 1). */
export const NO_HOLDER = 0xffffffff;

/**
 * A token. Its holders form a doubly linked list through their entries (`first`/`last` here,
 * `prev`/`next` in each holder), so that adding or removing a holder touches a fixed number of
 * entries whatever the holder count, and a page of holders is read without the others.
 */
export interface TokenState {
  /** Account that created the token (never changes). */
  issuer: number;
  /** Account holding every administration right. */
  owner: number;
  name: string;
  symbol: string;
  summary: string;
  /** Fraction digits of one token: a token is 10^decimal base units. */
  decimal: number;
  /** Total supply in base units (minting adds, burning takes). */
  supply: bigint;
  /** Created with the additional functions (per-wallet switches, locks, burn, mint). */
  advanced: boolean;
  /** The token-wide transfer switch. */
  transfer: boolean;
  /** Holders with a non-zero balance. */
  holders: number;
  /** Entries in the holder list (holders with a balance, a lock or a disabled transfer). */
  listed: number;
  first: number;
  last: number;
}

/** One account's standing in one token. */
export interface HolderState {
  balance: bigint;
  /** The per-wallet transfer switch. */
  transfer: boolean;
  /** Locked until the owner changes it. */
  volumeLock: bigint;
  /** Locked until block `timeLockUntil` (then it counts no more). */
  timeLock: bigint;
  timeLockUntil: number;
  prev: number;
  next: number;
}

/** State key of a token: the hex of its address hash. */
export function tokenKey(hash160: Uint8Array): string {
  return bytesToHex(hash160);
}

/** State key of a holder entry: the token key and the holder's account number. */
export function holderKey(token: string, account: number): string {
  return `${token}/${account}`;
}

function readFlag(r: ByteReader, what: string): boolean {
  const value = r.u8(what);
  if (value > 1) throw new DecodeError('BAD_FLAG', `${what} must be 0 or 1, got ${value}`);
  return value === 1;
}

export const tokenSpace: StateSpace<TokenState> = {
  name: 'tokens',
  encode(t) {
    return new ByteWriter(64 + t.name.length + t.symbol.length + t.summary.length)
      .u32(t.issuer)
      .u32(t.owner)
      .u8(t.decimal)
      .u8(t.advanced ? 1 : 0)
      .u8(t.transfer ? 1 : 0)
      .amount(t.supply)
      .u32(t.holders)
      .u32(t.listed)
      .u32(t.first)
      .u32(t.last)
      .string16(t.name)
      .string16(t.symbol)
      .string16(t.summary)
      .finish();
  },
  decode(bytes) {
    const r = new ByteReader(bytes);
    const token: TokenState = {
      issuer: r.u32('issuer'),
      owner: r.u32('owner'),
      decimal: r.u8('decimal'),
      advanced: readFlag(r, 'advanced'),
      transfer: readFlag(r, 'transfer'),
      supply: r.amount('supply'),
      holders: r.u32('holders'),
      listed: r.u32('listed'),
      first: r.u32('first'),
      last: r.u32('last'),
      name: r.string16('name'),
      symbol: r.string16('symbol'),
      summary: r.string16('summary'),
    };
    r.end('token');
    return token;
  },
  clone: (t) => ({ ...t }),
};

export const holderSpace: StateSpace<HolderState> = {
  name: 'token-holders',
  encode(h) {
    return new ByteWriter(48)
      .amount(h.balance)
      .u8(h.transfer ? 1 : 0)
      .amount(h.volumeLock)
      .amount(h.timeLock)
      .u32(h.timeLockUntil)
      .u32(h.prev)
      .u32(h.next)
      .finish();
  },
  decode(bytes) {
    const r = new ByteReader(bytes);
    const holder: HolderState = {
      balance: r.amount('balance'),
      transfer: readFlag(r, 'transfer'),
      volumeLock: r.amount('volumeLock'),
      timeLock: r.amount('timeLock'),
      timeLockUntil: r.u32('timeLockUntil'),
      prev: r.u32('prev'),
      next: r.u32('next'),
    };
    r.end('token holder');
    return holder;
  },
  clone: (h) => ({ ...h }),
};

/** A holder entry for an account that has none yet. */
export function emptyHolder(): HolderState {
  return {
    balance: 0n,
    transfer: true,
    volumeLock: 0n,
    timeLock: 0n,
    timeLockUntil: 0,
    prev: NO_HOLDER,
    next: NO_HOLDER,
  };
}

/** The time lock still in force at `height` (0 once it has expired). */
export function liveTimeLock(holder: Readonly<HolderState>, height: number): bigint {
  return holder.timeLockUntil > height ? holder.timeLock : 0n;
}

/** What may leave the wallet at `height`: the balance less both locks, never below zero. */
export function unlockedBalance(holder: Readonly<HolderState>, height: number): bigint {
  const free = holder.balance - holder.volumeLock - liveTimeLock(holder, height);
  return free > 0n ? free : 0n;
}

/** An entry that says nothing a fresh one would not: it leaves the holder list. */
export function isEmptyHolder(holder: Readonly<HolderState>, height: number): boolean {
  return (
    holder.balance === 0n &&
    holder.volumeLock === 0n &&
    liveTimeLock(holder, height) === 0n &&
    holder.transfer
  );
}
