import { ErrorCode, type Hashes } from '@chain/crypto';
import type { OperationReceiver, OperationSender } from '@chain/spec';
import { LedgerError } from '../errors';
import type { Genesis } from '../genesis';
import type { Account } from '../state/account';
import type { StateKeys } from '../state/committed-state';
import type { Operation } from './operation';
import type { OperationCodec } from './wire';

/**
 * A named key/value space of chain state owned by another package (tokens, participation). Values
 * are kept decoded in memory; `encode` is what is persisted and hashed into the state root, so it
 * must be canonical (equal values, equal bytes).
 */
export interface StateSpace<T> {
  readonly name: string;
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
  clone(value: T): T;
}

/**
 * What an operation type (and a block hook) sees of the state while it applies: reads fall through
 * to the committed state; writes are tracked for undo, persistence and the state root, and are
 * discarded when `apply` throws.
 */
export interface ApplyContext {
  /** Height of the block being applied (head + 1 while validating pending operations). */
  readonly height: number;
  /** Unix seconds of that block (the arrival time while pending). */
  readonly timestamp: number;
  /** True while validating against the pending state (mempool), false inside a block. */
  readonly pending: boolean;
  /** The resolved account number of the operation's signer; -1 in a block hook. */
  readonly signer: number;
  readonly genesis: Genesis;
  readonly prefix: string;
  readonly actPrice: bigint;
  readonly hashes: Hashes;
  /** A read-only view; do not mutate (use editAccount). */
  account(number: number): Readonly<Account> | undefined;
  accountByHash160(hash160: Uint8Array): Readonly<Account> | undefined;
  /** Decodes the address (INVALID_ACCOUNT naming `param` when malformed); undefined when not on chain. */
  accountByAddress(address: string, param?: string): Readonly<Account> | undefined;
  /** A mutable copy owned by this context (matured timelocks pruned). INVALID_ACCOUNT when missing. */
  editAccount(number: number, param?: string): Account;
  /** The account of this hash, created with the next number when the address is new. */
  ensureAccount(hash160: Uint8Array): Account;
  /**
   * The account that is to hold native coins for this hash (created when new), after the
   * registry's address reservations: a reserved address (a token's) is refused with
   * INVALID_ACCOUNT naming `param`, since coins sent there could never be spent.
   */
  coinRecipient(hash160: Uint8Array, param: string): Account;
  spendable(account: Readonly<Account>): bigint;
  /** Takes `amount` from spendable funds; INSUFFICIENT_FUNDS otherwise. */
  debit(number: number, amount: bigint, param?: string): void;
  /** Adds to the balance and marks the account as updated passively at this height. */
  credit(number: number, amount: bigint): void;
  /** A copy the caller may mutate and `put` back. */
  get<T>(space: StateSpace<T>, key: string): T | undefined;
  /** Stores `value` (the context owns it afterwards). */
  put<T>(space: StateSpace<T>, key: string, value: T): void;
  delete<T>(space: StateSpace<T>, key: string): void;
  /** The producer set, ascending account numbers. */
  producers(): readonly number[];
  setProducer(account: number, active: boolean): void;
}

/** One sender line of an operation object (@chain/spec's `OperationSender`); H/W checks add `amount`. */
export type PresentedSender = OperationSender;

/** One receiver line of an operation object (@chain/spec's `OperationReceiver`). */
export type PresentedReceiver = OperationReceiver;

/** How an operation type describes one of its operations in the SPEC operation object. */
export interface Presentation {
  amount: bigint;
  senders: PresentedSender[];
  receivers: PresentedReceiver[];
  optxt: string;
  /** Extra fields added to the operation object (e.g. `token`, `CPU`). */
  extra?: Record<string, unknown>;
  /** Standard fields left out of the operation object (e.g. createToken omits `subtype`). */
  omit?: readonly string[];
}

export interface PresentContext {
  readonly prefix: string;
  readonly hashes: Hashes;
  /** The signer's wallet address. */
  readonly signerAddress: string;
  /** The wallet address of an account number (pending accounts included); '#<n>' when unknown. */
  addressOf(account: number): string;
  addressOfHash160(hash160: Uint8Array): string;
  /** Committed state of a space, read only. */
  get<T>(space: StateSpace<T>, key: string): T | undefined;
}

/** An operation type plugged into the ledger: codec (wire.ts), rules and presentation. */
export interface OperationType<B = unknown> extends OperationCodec<B> {
  /** Validates and mutates; throws a ChainError when the operation is invalid. */
  apply(ctx: ApplyContext, op: Operation<B>): void;
  present(op: Operation<B>, ctx: PresentContext): Presentation;
  /**
   * Only for operations that carry their signer's key (activation): that key. Such an operation
   * may come from an inactive account or from a new one (signer 0xFFFFFFFF).
   */
  signerKey?(body: B): Uint8Array;
  /**
   * The committed entries applying it reads beside its signer's account (a receiver, a token),
   * added to `keys`: the chain loads them from disk before the apply, which then finds them in
   * memory. A type without it is applied all the same, reading what it misses synchronously.
   * `signer` is the signer's account number when known (not for a request still to be signed).
   */
  stateKeys?(body: B, keys: StateKeys, signer: number | undefined): void;
  /**
   * The addresses the operation touches beside its signer (a receiver, a token's wallets, a
   * participation target), added to `touched`: the history index lists the operation under each
   * of them (getWalletOperations), and under each token it names (getTokenOperations). A type
   * without it is listed under its signer only.
   */
  touches?(op: Operation<B>, touched: TouchedAddresses, hashes: Hashes): void;
}

/** What an operation touches beside its signer (OperationType.touches). */
export interface TouchedAddresses {
  /** Wallets by account number. */
  accounts: number[];
  /** Wallets by the hash160 of their address (resolved to accounts when indexed). */
  hashes: Uint8Array[];
  /** Tokens by the hash160 of their address. */
  tokens: Uint8Array[];
}

export interface BlockHookInfo {
  height: number;
  timestamp: number;
  /** Account number of the block's producer. */
  producer: number;
  /** Sum of the fees of the block's operations. */
  fees: bigint;
  operations: number;
}

/** The reasons an address reservation may give (INVALID_ACCOUNT ones). */
type AddressReservationReason = 'RECEIVER_IS_TOKEN';

/**
 * Addresses a plug-in reserves for itself, which hold no key (a token's address): they must not
 * receive native coins. `reserved` returns why, or undefined when the address is free.
 */
export interface AddressReservation {
  reserved(
    ctx: ApplyContext,
    hash160: Uint8Array,
  ): { readonly reason: AddressReservationReason; readonly message: string } | undefined;
  /** What `reserved` reads of the state for `hash160`, so that it is loaded before the apply. */
  stateKeys?(hash160: Uint8Array, keys: StateKeys): void;
}

/**
 * Reads of the state a block started from (its parent block's), before any of its operations: what
 * a rule about the whole block (its reward) decides by, so that the block's own operations cannot
 * change who it rewards.
 */
export type BlockStartState = Pick<ApplyContext, 'get'>;

/** Runs once per block after its operations (rewards). With no hook, fees go to the producer. */
export interface BlockHook {
  afterOperations(ctx: ApplyContext, block: BlockHookInfo, start: BlockStartState): void;
}

export interface OperationRegistry {
  register<B>(type: OperationType<B>): void;
  registerSpace<T>(space: StateSpace<T>): void;
  registerBlockHook(hook: BlockHook): void;
  registerAddressReservation(reservation: AddressReservation): void;
  get(optype: number, subtype: number): OperationType | undefined;
  space(name: string): StateSpace<unknown> | undefined;
  types(): readonly OperationType[];
  spaces(): readonly StateSpace<unknown>[];
  hooks(): readonly BlockHook[];
  addressReservations(): readonly AddressReservation[];
  /** Refuses further registration (the chain calls this when it opens). */
  seal(): void;
}

/**
 * An empty registry (no operation types). Most callers want `createRegistry()` (ledger-registry.ts),
 * which registers the ledger's own types: this module declares the seam and imports none of them.
 */
export function createEmptyRegistry(): OperationRegistry {
  const types = new Map<number, OperationType>();
  const spaces = new Map<string, StateSpace<unknown>>();
  const hooks: BlockHook[] = [];
  const reservations: AddressReservation[] = [];
  let sealed = false;
  const assertOpen = (what: string): void => {
    if (sealed) {
      throw new LedgerError(
        ErrorCode.NOT_ALLOWED,
        'REGISTRY_SEALED',
        `cannot register ${what} after the chain has opened`,
      );
    }
  };
  const keyOf = (optype: number, subtype: number): number => optype * 256 + subtype;
  return {
    register(type) {
      assertOpen(`operation type ${type.name}`);
      if (!Number.isInteger(type.optype) || type.optype < 0 || type.optype > 0xffff) {
        throw new LedgerError(ErrorCode.INVALID_DATA, 'BAD_OPTYPE', `optype must be a u16`);
      }
      if (!Number.isInteger(type.subtype) || type.subtype < 0 || type.subtype > 0xff) {
        throw new LedgerError(ErrorCode.INVALID_DATA, 'BAD_SUBTYPE', `subtype must be a u8`);
      }
      const key = keyOf(type.optype, type.subtype);
      if (types.has(key)) {
        throw new LedgerError(
          ErrorCode.NOT_ALLOWED,
          'DUPLICATE_OPTYPE',
          `optype ${type.optype}/${type.subtype} is already registered (${types.get(key)!.name})`,
        );
      }
      types.set(key, type as OperationType);
    },
    registerSpace(space) {
      assertOpen(`state space ${space.name}`);
      if (spaces.has(space.name)) {
        throw new LedgerError(
          ErrorCode.NOT_ALLOWED,
          'DUPLICATE_SPACE',
          `state space ${space.name} is already registered`,
        );
      }
      if (space.name.length === 0 || space.name.includes('\u0000')) {
        throw new LedgerError(ErrorCode.INVALID_DATA, 'BAD_SPACE_NAME', 'bad state space name');
      }
      spaces.set(space.name, space as StateSpace<unknown>);
    },
    registerBlockHook(hook) {
      assertOpen('a block hook');
      hooks.push(hook);
    },
    registerAddressReservation(reservation) {
      assertOpen('an address reservation');
      reservations.push(reservation);
    },
    get: (optype, subtype) => types.get(keyOf(optype, subtype)),
    space: (name) => spaces.get(name),
    types: () => [...types.values()],
    spaces: () => [...spaces.values()],
    hooks: () => hooks,
    addressReservations: () => reservations,
    seal() {
      sealed = true;
    },
  };
}
