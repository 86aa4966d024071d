import { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import type { OperationRegistry } from '../operation/registry';
import { type Account, encodeAccount } from './account';
import { DELETED, type StateLayer } from './state-layer';

interface AccountChange {
  number: number;
  after: Account;
  afterBytes: Uint8Array;
  /** Encoding before the block; undefined when the block created the account. */
  before: Uint8Array | undefined;
}

interface SpaceChange {
  space: string;
  key: string;
  /** Decoded value after the block; undefined when deleted. */
  afterValue: unknown;
  afterBytes: Uint8Array | undefined;
  before: Uint8Array | undefined;
}

/**
 * Everything one block changed, in canonical order, with the previous values: for undo, and for
 * the state vector (each value before removed, each value after added: state-lattice.ts).
 */
export interface BlockChanges {
  accounts: AccountChange[];
  spaces: SpaceChange[];
  producers: { before: number[]; after: number[] } | undefined;
}

/** The changes of `layer` (a child of the committed root) in canonical order. */
export function collectChanges(layer: StateLayer, registry: OperationRegistry): BlockChanges {
  const root = layer.parent;
  if (root === undefined) throw new Error('collectChanges needs a child of the root layer');
  const accounts: AccountChange[] = [];
  // A typed array sorts numbers natively, without a comparator call per comparison.
  const numbers = Float64Array.from(layer.accounts.keys()).sort();
  for (const number of numbers) {
    const after = layer.accounts.get(number)!;
    const previous = root.account(number);
    accounts.push({
      number,
      after,
      afterBytes: encodeAccount(after),
      before: previous === undefined ? undefined : encodeAccount(previous),
    });
  }
  const spaces: SpaceChange[] = [];
  for (const name of [...layer.spaceEntries.keys()].sort()) {
    const space = registry.space(name)!;
    const entries = layer.spaceEntries.get(name)!;
    for (const key of [...entries.keys()].sort()) {
      const value = entries.get(key);
      const previous = root.spaceGet(name, key);
      const afterBytes = value === DELETED ? undefined : space.encode(value);
      const before = previous === undefined ? undefined : space.encode(previous);
      if (afterBytes === undefined && before === undefined) continue;
      spaces.push({
        space: name,
        key,
        afterValue: value === DELETED ? undefined : value,
        afterBytes,
        before,
      });
    }
  }
  let producers: BlockChanges['producers'];
  if (layer.producerList !== undefined) {
    const before = [...root.producers()];
    const after = [...layer.producerList];
    if (before.join() !== after.join()) producers = { before, after };
  }
  return { accounts, spaces, producers };
}

/** What rolling a block back restores. */
interface UndoRecord {
  accounts: Array<{ number: number; before: Uint8Array | undefined }>;
  spaces: Array<{ space: string; key: string; before: Uint8Array | undefined }>;
  producers: number[] | undefined;
}

export function encodeUndo(changes: BlockChanges): Uint8Array {
  const w = new ByteWriter(64 + changes.accounts.length * 110);
  w.u32(changes.accounts.length);
  for (const a of changes.accounts) {
    w.u32(a.number);
    if (a.before === undefined) w.u8(0);
    else w.u8(1).varBytes16(a.before);
  }
  w.u32(changes.spaces.length);
  for (const s of changes.spaces) {
    w.string16(s.space).string16(s.key);
    if (s.before === undefined) w.u8(0);
    else w.u8(1).u32(s.before.length).bytes(s.before);
  }
  if (changes.producers === undefined) w.u8(0);
  else {
    w.u8(1).u32(changes.producers.before.length);
    for (const p of changes.producers.before) w.u32(p);
  }
  return w.finish();
}

export function decodeUndo(bytes: Uint8Array): UndoRecord {
  const r = new ByteReader(bytes);
  const accounts: UndoRecord['accounts'] = [];
  for (let n = r.u32(); n > 0; n--) {
    const number = r.u32();
    accounts.push({ number, before: r.u8() === 1 ? r.varBytes16() : undefined });
  }
  const spaces: UndoRecord['spaces'] = [];
  for (let n = r.u32(); n > 0; n--) {
    const space = r.string16();
    const key = r.string16();
    spaces.push({ space, key, before: r.u8() === 1 ? r.bytesCopy(r.u32()) : undefined });
  }
  let producers: number[] | undefined;
  if (r.u8() === 1) {
    producers = [];
    for (let n = r.u32(); n > 0; n--) producers.push(r.u32());
  }
  r.end('undo record');
  return { accounts, spaces, producers };
}
