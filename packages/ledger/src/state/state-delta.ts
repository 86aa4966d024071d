import { type Account, sameAccount } from './account';
import type { StateLayer } from './state-layer';

/**
 * One key of the chain state, as the pending pool tracks what an operation read and wrote: an
 * account by number; an address, a state-space entry, the producer set, the next account number
 * and the block's count of self-activations by a string whose first character says which (the
 * address keys are numberKey's 20 latin1 characters after it).
 */
export type StateKey = number | string;

const ADDRESS = '\u0000';
const SPACE = '\u0001';
export const PRODUCERS_STATE_KEY = '\u0002producers';
export const NEXT_NUMBER_STATE_KEY = '\u0002next';
export const ACTIVATIONS_STATE_KEY = '\u0002activations';

export function addressStateKey(numberKey: string): StateKey {
  return ADDRESS + numberKey;
}

export function spaceStateKey(space: string, key: string): StateKey {
  return `${SPACE}${space}\u0000${key}`;
}

/** The changes a layer or a delta holds (StateLayer and StateDelta alike). */
interface WrittenState {
  readonly accounts: ReadonlyMap<number, Account>;
  readonly numbers: ReadonlyMap<string, number>;
  readonly spaceEntries: ReadonlyMap<string, ReadonlyMap<string, unknown>>;
  readonly producerList: number[] | undefined;
  readonly newAccountActivations: number;
}

/** Calls `visit` for every key `state` wrote. */
export function forEachWrittenKey(state: WrittenState, visit: (key: StateKey) => void): void {
  for (const number of state.accounts.keys()) visit(number);
  for (const key of state.numbers.keys()) visit(addressStateKey(key));
  for (const [space, entries] of state.spaceEntries) {
    for (const key of entries.keys()) visit(spaceStateKey(space, key));
  }
  if (state.producerList !== undefined) visit(PRODUCERS_STATE_KEY);
  if (state.numbers.size > 0) visit(NEXT_NUMBER_STATE_KEY);
  if (state.newAccountActivations > 0) visit(ACTIVATIONS_STATE_KEY);
}

const NO_NUMBERS: ReadonlyMap<string, number> = new Map();
const NO_SPACES: ReadonlyMap<string, ReadonlyMap<string, unknown>> = new Map();

/**
 * What one operation did to the pending state when it was admitted: the entries it wrote (the
 * values its own layer held, shared with the pending layer and never mutated), and every key it
 * read or wrote. A block built from the pool merges these instead of applying the operation
 * again, as long as nothing it read has changed since (mempool/pool-execution.ts).
 */
export class StateDelta implements WrittenState {
  private constructor(
    readonly accounts: ReadonlyMap<number, Account>,
    readonly numbers: ReadonlyMap<string, number>,
    readonly spaceEntries: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
    readonly producerList: number[] | undefined,
    readonly nextNumber: number,
    readonly newAccountActivations: number,
    /** Read or written: what decides whether the operation would apply the same way again. */
    readonly keys: readonly StateKey[],
    /** The operation read the block's timestamp or pending flag: the pool's guess is not the block's. */
    readonly readBlockEnv: boolean,
  ) {}

  /** The changes of an operation's own layer (after it applied, before or after it merged). */
  static of(layer: StateLayer, readBlockEnv: boolean): StateDelta {
    const keys: StateKey[] = layer.reads === undefined ? [] : [...layer.reads];
    forEachWrittenKey(layer, (key) => {
      if (layer.reads?.has(key) !== true) keys.push(key);
    });
    return new StateDelta(
      layer.accounts,
      layer.numbers.size === 0 ? NO_NUMBERS : layer.numbers,
      layer.spaceEntries.size === 0 ? NO_SPACES : layer.spaceEntries,
      layer.producerList,
      layer.nextNumber,
      layer.newAccountActivations,
      keys,
      readBlockEnv,
    );
  }

  /** Calls `visit` for every key the operation wrote. */
  forEachWritten(visit: (key: StateKey) => void): void {
    forEachWrittenKey(this, visit);
  }

  /**
   * Whether this delta and `other` both wrote `key` with the same value: an account with the same
   * fields, an address naming the same number, the same next account number. Any other key (a
   * state-space entry, the producer set, the activation count) is never taken as the same.
   */
  wroteSame(other: StateDelta, key: StateKey): boolean {
    if (typeof key === 'number') {
      const mine = this.accounts.get(key);
      const theirs = other.accounts.get(key);
      return mine !== undefined && theirs !== undefined && sameAccount(mine, theirs);
    }
    if (key === NEXT_NUMBER_STATE_KEY) {
      return (
        this.numbers.size > 0 && other.numbers.size > 0 && this.nextNumber === other.nextNumber
      );
    }
    if (key.startsWith(ADDRESS)) {
      const mine = this.numbers.get(key.slice(ADDRESS.length));
      return mine !== undefined && mine === other.numbers.get(key.slice(ADDRESS.length));
    }
    return false;
  }

  /** True when the operation read or wrote one of `keys`. */
  touchesAny(keys: ReadonlySet<StateKey>): boolean {
    if (keys.size === 0) return false;
    for (const key of this.keys) if (keys.has(key)) return true;
    return false;
  }

  /** Writes the operation's changes into `layer`, as applying it there again would. */
  mergeInto(layer: StateLayer): void {
    for (const [number, account] of this.accounts) layer.accounts.set(number, account);
    for (const [key, number] of this.numbers) layer.numbers.set(key, number);
    for (const [space, entries] of this.spaceEntries) {
      for (const [key, value] of entries) layer.spaceSet(space, key, value);
    }
    if (this.numbers.size > 0) layer.nextNumber = this.nextNumber;
    if (this.producerList !== undefined) layer.producerList = this.producerList;
    layer.newAccountActivations += this.newAccountActivations;
  }

  /**
   * Takes out of `layer` what this operation wrote there and nothing wrote after it (the value in
   * the layer is still this one's object): a block that included it has committed those values, so
   * the layer reads them from the committed state again. A value that is not an object cannot be
   * told from a later equal one and stays (harmless: a later recheck or an empty pool drops it).
   */
  removeFrom(layer: StateLayer): void {
    for (const [number, account] of this.accounts) {
      if (layer.accounts.get(number) === account) layer.accounts.delete(number);
    }
    for (const [key, number] of this.numbers) {
      if (layer.numbers.get(key) === number) layer.numbers.delete(key);
    }
    for (const [space, entries] of this.spaceEntries) {
      const own = layer.spaceEntries.get(space);
      if (own === undefined) continue;
      for (const [key, value] of entries) {
        if (typeof value === 'object' && value !== null && own.get(key) === value) own.delete(key);
      }
      if (own.size === 0) layer.spaceEntries.delete(space);
    }
    if (this.producerList !== undefined && layer.producerList === this.producerList) {
      layer.producerList = undefined;
    }
    layer.newAccountActivations = Math.max(
      0,
      layer.newAccountActivations - this.newAccountActivations,
    );
  }
}
