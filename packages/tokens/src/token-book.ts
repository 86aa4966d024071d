import type { ApplyContext } from '@chain/ledger';
import {
  emptyHolder,
  type HolderState,
  holderKey,
  holderSpace,
  isEmptyHolder,
  NO_HOLDER,
  type TokenState,
  tokenSpace,
} from './state';

interface Entry {
  holder: HolderState;
  /** In the holder list before this operation. */
  wasListed: boolean;
  /** In the holder list now (changed only by `commit`). */
  listed: boolean;
  balanceBefore: bigint;
}

/**
 * The working set of one token while one operation applies: the token and the holder entries the
 * operation touches, each loaded once (so two views of one entry cannot overwrite each other), then
 * written back by `commit`, which keeps the holder list and the holder count right. Every step costs
 * the same whatever the number of holders.
 */
export class TokenBook {
  private readonly entries = new Map<number, Entry>();
  private tokenChanged = false;

  constructor(
    private readonly ctx: ApplyContext,
    readonly key: string,
    readonly token: TokenState,
  ) {}

  /** Marks the token record itself as changed (owner, switches, supply). */
  touchToken(): void {
    this.tokenChanged = true;
  }

  /** The holder entry of an account, mutable; a fresh one when it has none. */
  holder(account: number): HolderState {
    return this.entry(account).holder;
  }

  private entry(account: number): Entry {
    let entry = this.entries.get(account);
    if (entry !== undefined) return entry;
    const stored = this.ctx.get(holderSpace, holderKey(this.key, account));
    const holder = stored ?? emptyHolder();
    // An expired time lock is dropped when touched, as the ledger prunes matured timelocks.
    if (holder.timeLockUntil !== 0 && holder.timeLockUntil <= this.ctx.height) {
      holder.timeLock = 0n;
      holder.timeLockUntil = 0;
    }
    entry = {
      holder,
      wasListed: stored !== undefined,
      listed: stored !== undefined,
      balanceBefore: holder.balance,
    };
    this.entries.set(account, entry);
    return entry;
  }

  /** Links new holders, unlinks emptied ones, counts holders, and writes everything back. */
  commit(): void {
    const height = this.ctx.height;
    const touched = [...this.entries.keys()];
    for (const account of touched) {
      const entry = this.entries.get(account)!;
      const empty = isEmptyHolder(entry.holder, height);
      if (!entry.listed && !empty) this.link(account, entry);
      else if (entry.listed && empty) this.unlink(entry);
      const hadBalance = entry.balanceBefore !== 0n;
      const hasBalance = entry.holder.balance !== 0n;
      if (hadBalance !== hasBalance) {
        this.token.holders += hasBalance ? 1 : -1;
        this.tokenChanged = true;
      }
    }
    for (const [account, entry] of this.entries) {
      const key = holderKey(this.key, account);
      if (entry.listed) this.ctx.put(holderSpace, key, entry.holder);
      else if (entry.wasListed) this.ctx.delete(holderSpace, key);
    }
    if (this.tokenChanged) this.ctx.put(tokenSpace, this.key, this.token);
  }

  /** Appends to the end of the list: holders are listed in the order they joined. */
  private link(account: number, entry: Entry): void {
    const { token } = this;
    entry.holder.prev = token.last;
    entry.holder.next = NO_HOLDER;
    if (token.last === NO_HOLDER) token.first = account;
    else this.holder(token.last).next = account;
    token.last = account;
    token.listed++;
    entry.listed = true;
    this.tokenChanged = true;
  }

  private unlink(entry: Entry): void {
    const { token } = this;
    const { prev, next } = entry.holder;
    if (prev === NO_HOLDER) token.first = next;
    else this.holder(prev).next = next;
    if (next === NO_HOLDER) token.last = prev;
    else this.holder(next).prev = prev;
    entry.holder.prev = NO_HOLDER;
    entry.holder.next = NO_HOLDER;
    token.listed--;
    entry.listed = false;
    this.tokenChanged = true;
  }
}
