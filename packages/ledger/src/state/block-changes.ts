import { ErrorCode } from '@chain/crypto';
import { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { StoreError } from '../errors';
import type { OperationRegistry } from '../operation/registry';
import { decodeAccount, encodeAccount } from './account';
import { DELETED, type StateLayer } from './state-layer';
import { type Pause, runSteps, runStepsPaused, STEP_ITEMS } from './steps';

/** One entry's move: `before` is undefined where the entry did not exist, `afterBytes` where it no longer does. */
interface EntryChange {
  readonly before: Uint8Array | undefined;
  readonly afterBytes: Uint8Array | undefined;
}

export interface AccountChange extends EntryChange {
  readonly number: number;
  /** The account's address (what the address index maps to its number). */
  readonly hash160: Uint8Array;
}

export interface SpaceChange extends EntryChange {
  readonly space: string;
  readonly key: string;
}

/** What the state vector is moved by (StateLattice.apply): the entries' encodings before and after. */
export interface ChangedEntries {
  readonly accounts: readonly Pick<AccountChange, 'number' | 'before' | 'afterBytes'>[];
  readonly spaces: readonly Pick<SpaceChange, 'space' | 'key' | 'before' | 'afterBytes'>[];
  readonly producers: { readonly before: number[]; readonly after: number[] } | undefined;
}

/**
 * A block's state change: every entry it changed, in canonical order, with its value before and
 * after. Commit writes it (writeChanges) and moves the state vector by it; rollback writes its
 * inverse the same way, so that undoing a block is the same write as doing one.
 */
export class BlockChanges implements ChangedEntries {
  constructor(
    readonly accounts: AccountChange[],
    readonly spaces: SpaceChange[],
    readonly producers: { before: number[]; after: number[] } | undefined,
  ) {}

  /** The change that moves the state this one leaves back to the state it started from. */
  inverse(): BlockChanges {
    return new BlockChanges(
      this.accounts.map((a) => ({
        number: a.number,
        hash160: a.hash160,
        before: a.afterBytes,
        afterBytes: a.before,
      })),
      this.spaces.map((s) => ({
        space: s.space,
        key: s.key,
        before: s.afterBytes,
        afterBytes: s.before,
      })),
      this.producers === undefined
        ? undefined
        : { before: this.producers.after, after: this.producers.before },
    );
  }
}

/** The changes of `layer` (a child of the committed root) in canonical order. */
export function collectChanges(layer: StateLayer, registry: OperationRegistry): BlockChanges {
  return runSteps(changeSteps(layer, registry));
}

/** collectChanges with `pause()` between steps of STEP_ITEMS entries (a block's commit). */
export function collectChangesPaused(
  layer: StateLayer,
  registry: OperationRegistry,
  pause: Pause,
): Promise<BlockChanges> {
  return runStepsPaused(changeSteps(layer, registry), pause);
}

function* changeSteps(
  layer: StateLayer,
  registry: OperationRegistry,
): Generator<void, BlockChanges> {
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
      hash160: after.hash160,
      afterBytes: encodeAccount(after),
      before: previous === undefined ? undefined : encodeAccount(previous),
    });
    if (accounts.length % STEP_ITEMS === 0) yield;
  }
  const spaces: SpaceChange[] = [];
  for (const name of [...layer.spaceEntries.keys()].sort()) {
    const space = registry.space(name)!;
    const entries = layer.spaceEntries.get(name)!;
    let seen = 0;
    for (const key of [...entries.keys()].sort()) {
      if (++seen % STEP_ITEMS === 0) yield;
      const value = entries.get(key);
      const previous = root.spaceGet(name, key);
      const afterBytes = value === DELETED ? undefined : space.encode(value);
      const before = previous === undefined ? undefined : space.encode(previous);
      if (afterBytes === undefined && before === undefined) continue;
      spaces.push({ space: name, key, afterBytes, before });
    }
  }
  let producers: BlockChanges['producers'];
  if (layer.producerList !== undefined) {
    const before = [...root.producers()];
    const after = [...layer.producerList];
    if (before.join() !== after.join()) producers = { before, after };
  }
  return new BlockChanges(accounts, spaces, producers);
}

/**
 * The values a block's undo record gives back: each entry's value before the block. The values
 * after are not stored: they are the state the block left, which is at hand when it is undone.
 */
export interface UndoRecord {
  accounts: Array<{ number: number; before: Uint8Array | undefined }>;
  spaces: Array<{ space: string; key: string; before: Uint8Array | undefined }>;
  producers: number[] | undefined;
}

/** The state a block left, as rollback reads it (the entries' stored encodings). */
export interface StateAfter {
  accountBytes(number: number): Uint8Array | undefined;
  spaceBytes(space: string, key: string): Uint8Array | undefined;
  producers(): readonly number[];
}

/**
 * A block's change from its undo record (the values before) and the state it left (`after`, the
 * head's state or what undoing the blocks above it gave back).
 */
export function changesOfUndo(undo: UndoRecord, after: StateAfter): BlockChanges {
  const accounts = undo.accounts.map(({ number, before }): AccountChange => {
    const afterBytes = after.accountBytes(number);
    const either = afterBytes ?? before;
    if (either === undefined) {
      throw new StoreError(
        ErrorCode.INVALID_DATA,
        'CORRUPT_DATADIR',
        `an undo record names account ${number}, which is stored neither before nor after`,
      );
    }
    return { number, hash160: decodeAccount(number, either).hash160, before, afterBytes };
  });
  const spaces = undo.spaces.map(
    ({ space, key, before }): SpaceChange => ({
      space,
      key,
      before,
      afterBytes: after.spaceBytes(space, key),
    }),
  );
  const producers =
    undo.producers === undefined
      ? undefined
      : { before: undo.producers, after: [...after.producers()] };
  return new BlockChanges(accounts, spaces, producers);
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
