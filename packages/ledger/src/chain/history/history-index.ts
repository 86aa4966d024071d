import { type Hashes, hash160 } from '@chain/crypto';
import type { Operation } from '../../operation/operation';
import type { OperationRegistry, TouchedAddresses } from '../../operation/registry';
import { type ChainBatch, type ChainStore, prefixOf } from '../storage/store';

/**
 * The history index: for each account, every operation that touches it; for each token, its
 * operations; for each wallet, the tokens its operations moved. Keys only (the value is empty):
 * the operation's location (height, index in the block) is the end of the key, and the operation
 * itself is read from its block. Big-endian numbers, so that keys sort by account, then block,
 * then place: a reverse range is newest first, a range from a block is "since block".
 *
 * Accounts are keyed by number (4 bytes), not by hash160 (20): a key is 10 bytes instead of 26,
 * and an address resolves to its number with the address index the chain already keeps. An
 * account number never changes once given (a rollback removes only the newest accounts, and
 * their history keys with them).
 */

/** Bytes of an account's history key: account u32 BE, height u32 BE, index u16 BE. */
export const ADDRESS_KEY_BYTES = 10;
/** Bytes of a token's history key: token hash160, height u32 BE, index u16 BE. */
export const TOKEN_KEY_BYTES = 26;
const EMPTY = new Uint8Array(0);
/** Activation's signer field for an account that is new: resolved by its carried key. */
const NEW_SIGNER = 0xffff_ffff;

/** An operation's place on the chain. */
export interface OperationLocation {
  height: number;
  index: number;
}

export function addressHistoryKey(account: number, height: number, index: number): Uint8Array {
  const key = new Uint8Array(ADDRESS_KEY_BYTES);
  const view = new DataView(key.buffer);
  view.setUint32(0, account);
  view.setUint32(4, height);
  view.setUint16(8, index);
  return key;
}

export function tokenHistoryKey(token: Uint8Array, height: number, index: number): Uint8Array {
  const key = new Uint8Array(TOKEN_KEY_BYTES);
  key.set(token, 0);
  const view = new DataView(key.buffer);
  view.setUint32(20, height);
  view.setUint16(24, index);
  return key;
}

export function walletTokenKey(account: number, token: Uint8Array): Uint8Array {
  const key = new Uint8Array(24);
  new DataView(key.buffer).setUint32(0, account);
  key.set(token, 4);
  return key;
}

/** The location at the end of a history key (either kind). */
export function locationOfKey(key: Uint8Array): OperationLocation {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const at = key.byteLength - 6;
  return { height: view.getUint32(at), index: view.getUint16(at + 4) };
}

/** The token hash160 of a wallet-token key. */
export function tokenOfKey(key: Uint8Array): Uint8Array {
  return key.slice(4, 24);
}

/** Resolves a wallet's hash160 to its account number (undefined when not on chain). */
export type AccountResolver = (hash160: Uint8Array) => number | undefined;

/** The index keys of one operation: its accounts (signer first, no repeats) and its tokens. */
export interface OperationKeys {
  accounts: number[];
  tokens: Uint8Array[];
}

/** What the operation touches, as account numbers and token hashes. */
export function keysOfOperation(
  registry: OperationRegistry,
  hashes: Hashes,
  op: Operation,
  resolve: AccountResolver,
): OperationKeys {
  const type = registry.get(op.optype, op.subtype);
  const touched: TouchedAddresses = { accounts: [], hashes: [], tokens: [] };
  let signer: number | undefined = op.signer;
  if (signer === NEW_SIGNER) {
    const key = type?.signerKey?.(op.body);
    signer = key === undefined ? undefined : resolve(hash160(key, hashes));
  }
  type?.touches?.(op, touched, hashes);
  const accounts: number[] = signer === undefined ? [] : [signer];
  const add = (n: number | undefined): void => {
    if (n !== undefined && !accounts.includes(n)) accounts.push(n);
  };
  for (const n of touched.accounts) add(n);
  for (const h of touched.hashes) add(resolve(h));
  return { accounts, tokens: touched.tokens };
}

/**
 * Puts (or, with `remove`, deletes) the index entries of a block's operations in `batch`. A
 * rollback does not delete wallet-token entries (another block may have made the same one): a
 * wallet's token list is every token it ever moved, read with the balance the state holds.
 */
export function indexBlock(
  batch: ChainBatch,
  store: ChainStore,
  keys: readonly OperationKeys[],
  height: number,
  remove = false,
  /** The position in the block of `keys[0]` (a block indexed in steps). */
  first = 0,
): void {
  // Keys are written with their sublevel prefix (putPrefixed), as the ops index's are: a block
  // writes one or two per operation, and abstract-level's prefixing would copy each again.
  const prefix = prefixOf(store.addressHistory);
  for (let at = 0; at < keys.length; at++) {
    const { accounts, tokens } = keys[at]!;
    const index = first + at;
    for (const account of accounts) {
      if (remove) {
        batch.del(addressHistoryKey(account, height, index), { sublevel: store.addressHistory });
        continue;
      }
      const key = Buffer.allocUnsafe(prefix.length + ADDRESS_KEY_BYTES);
      prefix.copy(key, 0);
      key.writeUInt32BE(account, prefix.length);
      key.writeUInt32BE(height, prefix.length + 4);
      key.writeUInt16BE(index, prefix.length + 8);
      batch.putPrefixed(key, EMPTY);
    }
    for (const token of tokens) {
      const key = tokenHistoryKey(token, height, index);
      if (remove) {
        batch.del(key, { sublevel: store.tokenHistory });
        continue;
      }
      batch.put(key, EMPTY, { sublevel: store.tokenHistory });
      for (const account of accounts) {
        batch.put(walletTokenKey(account, token), EMPTY, { sublevel: store.walletTokens });
      }
    }
  }
}

/** Where a page of history starts or stops, and which way it runs. */
export interface HistoryRange {
  /** Most locations returned. */
  max: number;
  /** Newest first (default), or oldest first from `fromBlock`. */
  ascending: boolean;
  /** Only operations in this block or later. */
  fromBlock: number;
  /** Only operations strictly after (ascending) or before (descending) this location. */
  after?: OperationLocation;
}

/**
 * A page of history locations under `prefix` (an account's 4 bytes or a token's 20), and whether
 * more follow. Reads at most `max + 1` keys: bounded whatever the history's length.
 */
export async function readHistory(
  sublevel: ChainStore['addressHistory'],
  prefix: Uint8Array,
  range: HistoryRange,
): Promise<{ locations: OperationLocation[]; more: boolean }> {
  const at = (height: number, index: number): Uint8Array => {
    const key = new Uint8Array(prefix.length + 6);
    key.set(prefix, 0);
    const view = new DataView(key.buffer);
    view.setUint32(prefix.length, height);
    view.setUint16(prefix.length + 4, index);
    return key;
  };
  const lowest = at(range.fromBlock, 0);
  const highest = at(0xffff_ffff, 0xffff);
  const bounds = range.ascending
    ? range.after === undefined
      ? { gte: lowest, lte: highest }
      : { gt: at(range.after.height, range.after.index), lte: highest }
    : range.after === undefined
      ? { gte: lowest, lte: highest }
      : { gte: lowest, lt: at(range.after.height, range.after.index) };
  const locations: OperationLocation[] = [];
  for await (const key of sublevel.keys({
    ...bounds,
    reverse: !range.ascending,
    limit: range.max + 1,
  })) {
    locations.push(locationOfKey(key));
  }
  const more = locations.length > range.max;
  if (more) locations.length = range.max;
  return { locations, more };
}

/** Account numbers as the 4-byte prefix of their history keys. */
export function accountPrefix(account: number): Uint8Array {
  const prefix = new Uint8Array(4);
  new DataView(prefix.buffer).setUint32(0, account);
  return prefix;
}
