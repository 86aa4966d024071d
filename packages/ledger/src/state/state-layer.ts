import { type Account, cloneAccount, copyAccountHash, newAccount } from './account';

/** Marks a space entry deleted in a layer (shadowing the parent's value). */
export const DELETED: unique symbol = Symbol('deleted');
export type SpaceValue = unknown | typeof DELETED;

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
 * One layer of chain state. The root layer holds the committed state; child layers record changes
 * on top of their parent copy-on-write (the pending state of the mempool, a block being built, one
 * operation being applied) and are merged into the parent when they succeed, dropped when not.
 */
export class StateLayer {
  readonly parent: StateLayer | undefined;
  /** Accounts owned (changed or created) by this layer; in the root: every account. */
  readonly accounts = new Map<number, Account>();
  /** numberKey(hash160) -> number for accounts created in this layer (root: all). */
  readonly numbers = new Map<string, number>();
  readonly spaceEntries = new Map<string, Map<string, SpaceValue>>();
  nextNumber: number;
  /** The producer set when changed in this layer (the root always has one). */
  producerList: number[] | undefined;
  /** Accounts created by their own activation in this layer (never counted in the root). */
  newAccountActivations = 0;

  constructor(parent?: StateLayer) {
    this.parent = parent;
    this.nextNumber = parent ? parent.nextNumber : 0;
    this.producerList = parent ? undefined : [];
  }

  child(): StateLayer {
    return new StateLayer(this);
  }

  account(number: number): Account | undefined {
    for (let layer: StateLayer | undefined = this; layer; layer = layer.parent) {
      const found = layer.accounts.get(number);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  numberOf(hash160: Uint8Array): number | undefined {
    const key = numberKey(hash160);
    for (let layer: StateLayer | undefined = this; layer; layer = layer.parent) {
      const found = layer.numbers.get(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** This layer's own copy of the account, made on first edit. */
  editAccount(number: number): Account | undefined {
    const own = this.accounts.get(number);
    if (own !== undefined) return own;
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
    for (let layer: StateLayer | undefined = this; layer; layer = layer.parent) {
      const found = layer.spaceEntries.get(space)?.get(key);
      if (found !== undefined) return found === DELETED ? undefined : found;
    }
    return undefined;
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
    for (let layer: StateLayer | undefined = this; layer; layer = layer.parent) {
      if (layer.producerList !== undefined) return layer.producerList;
    }
    return [];
  }

  setProducers(list: number[]): void {
    this.producerList = list;
  }

  /** New-account activations above the committed state: in the block, or in the pending state. */
  activationsAboveRoot(): number {
    let count = 0;
    for (let layer: StateLayer | undefined = this; layer?.parent; layer = layer.parent) {
      count += layer.newAccountActivations;
    }
    return count;
  }

  /** Moves this layer's changes into its parent (this layer must not be used afterwards). */
  mergeIntoParent(): void {
    const parent = this.parent;
    if (parent === undefined) throw new Error('the root state layer has no parent');
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
