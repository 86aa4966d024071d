import { type Account, cloneAccount, copyAccountHash, newAccount } from './account';
import {
  ACTIVATIONS_STATE_KEY,
  addressStateKey,
  PRODUCERS_STATE_KEY,
  type StateKey,
  spaceStateKey,
} from './state-delta';

/** Marks a space entry deleted in a layer (shadowing the parent's value). */
export const DELETED: unique symbol = Symbol('deleted');
type SpaceValue = unknown | typeof DELETED;

/** Map key of a 20-byte hash (Buffer's native hex is the fastest way to a string key). */
export function hashKey(hash160: Uint8Array): string {
  return Buffer.from(hash160.buffer, hash160.byteOffset, hash160.byteLength).toString('hex');
}

/**
 * Key of an account's hash in `numbers`: its bytes as latin1 text, one character a byte (half the
 * length of hex: the committed state holds one per account). Only ever a map key, never shown.
 */
export function numberKey(hash160: Uint8Array): string {
  return Buffer.from(hash160.buffer, hash160.byteOffset, hash160.byteLength).toString('latin1');
}

/**
 * What a state layer reads through: the committed state (on disk behind a cache, CommittedState)
 * or another layer. Returned values are shared: never mutate them (a layer edits its own copy).
 */
export interface StateView {
  account(number: number): Account | undefined;
  numberOf(hash160: Uint8Array): number | undefined;
  /** The raw stored value (do not mutate) or undefined. */
  spaceGet(space: string, key: string): unknown;
  producers(): readonly number[];
  /** The number the next new account gets. */
  readonly nextNumber: number;
}

/**
 * One layer of chain state over a parent view: the pending state of the mempool, a block being
 * built, one operation being applied. It records changes copy-on-write and is merged into its
 * parent layer when it succeeds, dropped when not; a layer over the committed state is committed
 * by its block (CommittedState.commit). A layer without a parent is a root of its own (tests).
 */
export class StateLayer implements StateView {
  readonly parent: StateView | undefined;
  /** Accounts owned (changed or created) by this layer. */
  readonly accounts = new Map<number, Account>();
  /** numberKey(hash160) -> number for accounts created in this layer. */
  readonly numbers = new Map<string, number>();
  readonly spaceEntries = new Map<string, Map<string, SpaceValue>>();
  nextNumber: number;
  /** The producer set when changed in this layer. */
  producerList: number[] | undefined;
  /** Accounts created by their own activation in this layer (never counted in a root). */
  newAccountActivations = 0;
  /**
   * When set, every key this layer read from its parent (an operation's layer in the pool: what
   * decides whether it would apply the same way again, StateDelta).
   */
  reads: Set<StateKey> | undefined;

  constructor(parent?: StateView) {
    this.parent = parent;
    this.nextNumber = parent ? parent.nextNumber : 0;
    this.producerList = parent ? undefined : [];
  }

  child(): StateLayer {
    return new StateLayer(this);
  }

  account(number: number): Account | undefined {
    const own = this.accounts.get(number);
    if (own !== undefined) return own;
    this.reads?.add(number);
    return this.parent?.account(number);
  }

  numberOf(hash160: Uint8Array): number | undefined {
    if (this.numbers.size > 0) {
      const own = this.numbers.get(numberKey(hash160));
      if (own !== undefined) return own;
    }
    this.reads?.add(addressStateKey(numberKey(hash160)));
    return this.parent?.numberOf(hash160);
  }

  /** This layer's own copy of the account, made on first edit. */
  editAccount(number: number): Account | undefined {
    const own = this.accounts.get(number);
    if (own !== undefined) return own;
    this.reads?.add(number);
    const inherited = this.parent?.account(number);
    if (inherited === undefined) return undefined;
    const copy = cloneAccount(inherited);
    this.accounts.set(number, copy);
    return copy;
  }

  createAccount(hash160: Uint8Array): Account {
    const account = newAccount(this.nextNumber++, copyAccountHash(hash160));
    this.accounts.set(account.number, account);
    this.numbers.set(numberKey(hash160), account.number);
    return account;
  }

  /** The raw stored value (do not mutate) or undefined. */
  spaceGet(space: string, key: string): unknown {
    const found = this.spaceEntries.get(space)?.get(key);
    if (found !== undefined) return found === DELETED ? undefined : found;
    this.reads?.add(spaceStateKey(space, key));
    return this.parent?.spaceGet(space, key);
  }

  spaceSet(space: string, key: string, value: SpaceValue): void {
    let entries = this.spaceEntries.get(space);
    if (entries === undefined) {
      entries = new Map();
      this.spaceEntries.set(space, entries);
    }
    if (value === DELETED && this.parent === undefined) entries.delete(key);
    else entries.set(key, value);
  }

  producers(): readonly number[] {
    if (this.producerList !== undefined) return this.producerList;
    this.reads?.add(PRODUCERS_STATE_KEY);
    return this.parent?.producers() ?? [];
  }

  setProducers(list: number[]): void {
    this.producerList = list;
  }

  /** New-account activations above the committed state: in the block, or in the pending state. */
  activationsAboveRoot(): number {
    this.reads?.add(ACTIVATIONS_STATE_KEY);
    let count = 0;
    for (
      let layer: StateView | undefined = this;
      layer instanceof StateLayer && layer.parent !== undefined;
      layer = layer.parent
    ) {
      count += layer.newAccountActivations;
    }
    return count;
  }

  /** Moves this layer's changes into its parent layer (this layer must not be used afterwards). */
  mergeIntoParent(): void {
    const parent = this.parent;
    if (!(parent instanceof StateLayer)) throw new Error('only a layer merges into its parent');
    for (const [number, account] of this.accounts) parent.accounts.set(number, account);
    for (const [key, number] of this.numbers) parent.numbers.set(key, number);
    for (const [space, entries] of this.spaceEntries) {
      for (const [key, value] of entries) parent.spaceSet(space, key, value);
    }
    parent.nextNumber = this.nextNumber;
    if (this.producerList !== undefined) parent.producerList = this.producerList;
    if (parent.parent !== undefined) parent.newAccountActivations += this.newAccountActivations;
  }

  /** True when this layer changed nothing. */
  isEmpty(): boolean {
    return (
      this.accounts.size === 0 && this.spaceEntries.size === 0 && this.producerList === undefined
    );
  }
}
