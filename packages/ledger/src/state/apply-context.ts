import { decodeAddress, ErrorCode, type Hashes } from '@chain/crypto';
import { LedgerError } from '../errors';
import type { Genesis } from '../genesis';
import type { ApplyContext, OperationRegistry, StateSpace } from '../operation/registry';
import { type Account, spendableAt } from './account';
import { DELETED, type StateLayer } from './state-layer';

/** The fixed surroundings of one block (or of the pending state) while operations apply. */
export interface ApplyEnv {
  readonly genesis: Genesis;
  readonly actPrice: bigint;
  readonly hashes: Hashes;
  readonly registry: OperationRegistry;
  readonly height: number;
  readonly timestamp: number;
  readonly pending: boolean;
}

/** ApplyContext over one state layer. */
export class LayerContext implements ApplyContext {
  /**
   * The operation read what the pool's surroundings guess of the block's (its timestamp, whether
   * it is pending): its effect then depends on the block that takes it.
   */
  readBlockEnv = false;

  constructor(
    readonly layer: StateLayer,
    readonly env: ApplyEnv,
    readonly signer: number,
  ) {}

  get height(): number {
    return this.env.height;
  }
  get timestamp(): number {
    this.readBlockEnv = true;
    return this.env.timestamp;
  }
  get pending(): boolean {
    this.readBlockEnv = true;
    return this.env.pending;
  }
  get genesis(): Genesis {
    return this.env.genesis;
  }
  get prefix(): string {
    return this.env.genesis.prefix;
  }
  get actPrice(): bigint {
    return this.env.actPrice;
  }
  get hashes(): Hashes {
    return this.env.hashes;
  }

  account(number: number): Readonly<Account> | undefined {
    return this.layer.account(number);
  }

  accountByHash160(hash: Uint8Array): Readonly<Account> | undefined {
    const number = this.layer.numberOf(hash);
    return number === undefined ? undefined : this.layer.account(number);
  }

  accountByAddress(address: string, param?: string): Readonly<Account> | undefined {
    return this.accountByHash160(decodeAddress(address, this.prefix, param).hash160);
  }

  editAccount(number: number, param?: string): Account {
    const account = this.layer.editAccount(number);
    if (account === undefined) {
      throw new LedgerError(
        ErrorCode.INVALID_ACCOUNT,
        'UNKNOWN_ACCOUNT',
        `account ${number} does not exist`,
        param === undefined ? {} : { param },
      );
    }
    if (account.timelocks.length > 0) {
      const height = this.env.height;
      account.timelocks = account.timelocks.filter((t) => t.untilBlock > height);
    }
    return account;
  }

  ensureAccount(hash: Uint8Array): Account {
    const number = this.layer.numberOf(hash);
    return number === undefined ? this.layer.createAccount(hash) : this.editAccount(number);
  }

  coinRecipient(hash: Uint8Array, param: string): Account {
    for (const reservation of this.env.registry.addressReservations()) {
      const refusal = reservation.reserved(this, hash);
      if (refusal !== undefined) {
        throw new LedgerError(ErrorCode.INVALID_ACCOUNT, refusal.reason, refusal.message, {
          param,
        });
      }
    }
    return this.ensureAccount(hash);
  }

  spendable(account: Readonly<Account>): bigint {
    return spendableAt(account, this.env.height);
  }

  debit(number: number, amount: bigint, param?: string): void {
    const account = this.editAccount(number, param);
    const available = spendableAt(account, this.env.height);
    if (amount > available) {
      throw new LedgerError(
        ErrorCode.INSUFFICIENT_FUNDS,
        'INSUFFICIENT_FUNDS',
        `account ${number} can spend ${available} base units, ${amount} needed`,
        param === undefined ? {} : { param },
      );
    }
    account.balance -= amount;
  }

  credit(number: number, amount: bigint): void {
    const account = this.editAccount(number);
    account.balance += amount;
    account.updatedPassive = this.env.height;
  }

  get<T>(space: StateSpace<T>, key: string): T | undefined {
    this.assertRegistered(space);
    const value = this.layer.spaceGet(space.name, key) as T | undefined;
    return value === undefined ? undefined : space.clone(value);
  }

  put<T>(space: StateSpace<T>, key: string, value: T): void {
    this.assertRegistered(space);
    if (value === undefined) throw new TypeError('cannot put undefined; use delete');
    this.layer.spaceSet(space.name, key, value);
  }

  delete<T>(space: StateSpace<T>, key: string): void {
    this.assertRegistered(space);
    if (this.layer.spaceGet(space.name, key) !== undefined) {
      this.layer.spaceSet(space.name, key, DELETED);
    }
  }

  producers(): readonly number[] {
    return this.layer.producers();
  }

  setProducer(account: number, active: boolean): void {
    if (this.layer.account(account) === undefined) {
      throw new LedgerError(
        ErrorCode.INVALID_ACCOUNT,
        'UNKNOWN_ACCOUNT',
        `account ${account} does not exist`,
      );
    }
    const current = this.layer.producers();
    const has = current.includes(account);
    if (has === active) return;
    const next = active
      ? [...current, account].sort((a, b) => a - b)
      : current.filter((n) => n !== account);
    this.layer.setProducers(next);
  }

  private assertRegistered(space: StateSpace<unknown> | StateSpace<never>): void {
    if (this.env.registry.space(space.name) !== (space as unknown)) {
      throw new LedgerError(
        ErrorCode.NOT_ALLOWED,
        'UNREGISTERED_SPACE',
        `state space ${space.name} is not registered with the chain's registry`,
      );
    }
  }
}
