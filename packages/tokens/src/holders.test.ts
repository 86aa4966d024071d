import { decodeAddress } from '@chain/crypto';
import type { Chain } from '@chain/ledger';
import { COIN, fundAndActivate, mine, type TestWallet } from '@chain/ledger/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TokenHolderEntry, tokenHolders, tokenInfo } from './read';
import { holderKey, holderSpace, NO_HOLDER, tokenKey, tokenSpace } from './state';
import {
  adminToken,
  createToken,
  expectRefusal,
  openTokenChain,
  sendToken,
  testWallet,
} from './testing/token-chain';

const signers = [0, 1, 2, 3].map((i) => testWallet(`holders signer ${i}`));
const passive = [0, 1, 2].map((i) => testWallet(`holders passive ${i}`).address);
const everyone = [...signers.map((w) => w.address), ...passive];
const owner = signers[0]!;
let chain: Chain;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ chain, cleanup } = await openTokenChain());
  await fundAndActivate(chain, signers, 100n * COIN);
});

afterAll(() => cleanup());

/** Every holder, read page by page with `after`. */
function allHolders(token: string, max: number): TokenHolderEntry[] {
  const out: TokenHolderEntry[] = [];
  for (;;) {
    const after = out.at(-1)?.wallet;
    const page = tokenHolders(chain, token, after === undefined ? { max } : { after, max });
    expect(page.holder.length).toBeLessThanOrEqual(max);
    out.push(...page.holder);
    if (page.holder.length < max) return out;
  }
}

/** The list's links both ways: walking back from `last` meets every entry walking forward met. */
function expectLinkedBothWays(address: string): void {
  const key = tokenKey(decodeAddress(address).hash160);
  const token = chain.stateEntry(tokenSpace, key)!;
  const forward: number[] = [];
  for (let n = token.first; n !== NO_HOLDER; ) {
    forward.push(n);
    n = chain.stateEntry(holderSpace, holderKey(key, n))!.next;
  }
  const backward: number[] = [];
  for (let n = token.last; n !== NO_HOLDER; ) {
    backward.push(n);
    n = chain.stateEntry(holderSpace, holderKey(key, n))!.prev;
  }
  expect(backward.reverse()).toEqual(forward);
  expect(forward).toHaveLength(token.listed);
}

/** The holder list as a plain model: entries in the order they joined, dropped when empty. */
class HolderModel {
  readonly entries = new Map<string, { balance: bigint; lock: bigint; transfer: boolean }>();

  entry(wallet: string) {
    return this.entries.get(wallet) ?? { balance: 0n, lock: 0n, transfer: true };
  }

  set(wallet: string, value: { balance: bigint; lock: bigint; transfer: boolean }): void {
    const empty = value.balance === 0n && value.lock === 0n && value.transfer;
    if (empty) this.entries.delete(wallet);
    else if (this.entries.has(wallet)) this.entries.set(wallet, value);
    else this.entries.set(wallet, value); // a new key joins at the end
  }

  listed(): TokenHolderEntry[] {
    return [...this.entries].map(([wallet, e]) => ({
      transfer: e.transfer,
      balance: e.balance.toString(),
      wallet,
      volumeLock: e.lock.toString(),
      volumeTimeLock: '0',
    }));
  }
}

/** 'all': everything the sender may send, or the target's whole balance (empties holders often). */
type Amount = bigint | 'all';

type Command =
  | { kind: 'send'; from: number; to: number; amount: Amount }
  | { kind: 'mint' | 'burn' | 'lock'; to: number; amount: Amount }
  | { kind: 'freeze'; to: number; select: boolean }
  | { kind: 'mine' };

const amount: fc.Arbitrary<Amount> = fc.oneof(
  fc.bigInt({ min: 0n, max: 60n }),
  fc.constant('all' as const),
);

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      from: fc.integer({ min: 0, max: signers.length - 1 }),
      to: fc.integer({ min: 0, max: everyone.length - 1 }),
      amount,
    }),
  },
  fc.record({
    kind: fc.constantFrom('mint' as const, 'burn' as const, 'lock' as const),
    to: fc.integer({ min: 0, max: everyone.length - 1 }),
    amount,
  }),
  fc.record({
    kind: fc.constant('freeze' as const),
    to: fc.integer({ min: 0, max: everyone.length - 1 }),
    select: fc.boolean(),
  }),
  fc.constant({ kind: 'mine' as const }),
);

/** Runs one command on chain and in the model; a command the rules refuse must be refused. */
async function run(token: string, model: HolderModel, c: Command): Promise<void> {
  if (c.kind === 'mine') {
    await mine(chain);
    return;
  }
  const to = everyone[c.to]!;
  const target = model.entry(to);
  if (c.kind === 'send') {
    const from: TestWallet = signers[c.from]!;
    const sender = model.entry(from.address);
    const unlocked = sender.balance > sender.lock ? sender.balance - sender.lock : 0n;
    const amount = c.amount === 'all' ? unlocked : c.amount;
    const refusal =
      amount === 0n
        ? 'ZERO_TOKEN_AMOUNT'
        : to === from.address
          ? 'TOKEN_SELF_TRANSFER'
          : !sender.transfer
            ? 'WALLET_TRANSFER_DISABLED'
            : amount > sender.balance
              ? 'INSUFFICIENT_TOKEN_BALANCE'
              : amount > unlocked
                ? 'TOKEN_VOLUME_LOCKED'
                : undefined;
    const submitted = sendToken(chain, from, token, to, amount);
    if (refusal !== undefined) {
      await expect(submitted).rejects.toMatchObject(expectRefusal(1040, refusal));
      return;
    }
    await submitted;
    model.set(from.address, { ...sender, balance: sender.balance - amount });
    model.set(to, { ...model.entry(to), balance: model.entry(to).balance + amount });
    return;
  }
  if (c.kind === 'freeze') {
    await adminToken(chain, owner, token, 'transferWalletEnabled', {
      receiver: to,
      select: c.select,
    });
    model.set(to, { ...target, transfer: c.select });
    return;
  }
  const amount = c.amount === 'all' ? target.balance : c.amount;
  const submitted = adminToken(chain, owner, token, `${c.kind}WalletVolume`, {
    receiver: to,
    amount,
  });
  const refusal =
    c.kind === 'lock'
      ? amount > target.balance
        ? 'LOCK_EXCEEDS_BALANCE'
        : undefined
      : amount === 0n
        ? 'ZERO_TOKEN_AMOUNT'
        : c.kind === 'burn' && amount > target.balance - target.lock
          ? 'BURN_EXCEEDS_BALANCE' // unlocked volume only (issue 42)
          : undefined;
  if (refusal !== undefined) {
    await expect(submitted).rejects.toMatchObject(expectRefusal(1040, refusal));
    return;
  }
  await submitted;
  if (c.kind === 'lock') model.set(to, { ...target, lock: amount });
  else {
    const delta = c.kind === 'mint' ? amount : -amount;
    model.set(to, { ...target, balance: target.balance + delta });
  }
}

describe('the holder list', () => {
  it('matches a model of holders in join order, with counts and supply, under any operations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 5, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (commands, pageSize) => {
          const created = await createToken(chain, owner, { decimal: 0, supply: 100n });
          const token = created.token as string;
          const model = new HolderModel();
          model.set(owner.address, { balance: 100n, lock: 0n, transfer: true });
          // Every signer starts with some tokens, so that sends and removals happen often.
          for (const from of [1, 2, 3]) {
            await run(token, model, { kind: 'send', from: 0, to: from, amount: 10n });
          }
          for (const c of commands) await run(token, model, c);
          await mine(chain);

          expectLinkedBothWays(token);
          const expected = model.listed();
          expect(allHolders(token, pageSize)).toEqual(expected);
          const nonZero = expected.filter((h) => h.balance !== '0');
          const supply = expected.reduce((sum, h) => sum + BigInt(h.balance), 0n);
          expect(tokenInfo(chain, token)).toMatchObject({
            totalHolder: nonZero.length,
            totalAmount: supply.toString(),
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses to continue after a wallet that is not a holder', async () => {
    const created = await createToken(chain, owner, { decimal: 0, supply: 5n });
    await mine(chain);
    expect(() => tokenHolders(chain, created.token as string, { after: passive[2]! })).toThrow(
      expect.objectContaining({ code: 1010, reason: 'HOLDER_NOT_FOUND', param: 'after' }),
    );
    expect(() => tokenHolders(chain, created.token as string, { max: 1001 })).toThrow(
      expect.objectContaining({ reason: 'BAD_PAGE_SIZE', param: 'max' }),
    );
  });
});

describe('scale', () => {
  /** Holder and token entries an operation reads (every read of a space entry clones it). */
  async function entriesRead(submit: () => Promise<unknown>): Promise<number> {
    const holders = vi.spyOn(holderSpace, 'clone');
    const tokens = vi.spyOn(tokenSpace, 'clone');
    try {
      await submit();
      return holders.mock.calls.length + tokens.mock.calls.length;
    } finally {
      holders.mockRestore();
      tokens.mockRestore();
    }
  }

  it('a transfer and a page cost the same with 2 holders or 3,001', async () => {
    const small = (await createToken(chain, owner, { decimal: 0, supply: 1000n })).token as string;
    const big = (await createToken(chain, owner, { decimal: 0, supply: 1000n })).token as string;
    await mine(chain);
    const many = Array.from({ length: 3000 }, (_, i) => testWallet(`holders many ${i}`).address);
    // Both tokens: the owner first, someone else last (a new holder is linked after the last).
    await adminToken(chain, owner, small, 'mintWalletVolume', { receiver: many[0]!, amount: 1n });
    // Submitted together, so the journal's group commit syncs them in a few writes.
    await Promise.all(
      many.map((wallet) =>
        adminToken(chain, owner, big, 'mintWalletVolume', { receiver: wallet, amount: 1n }),
      ),
    );
    await mine(chain);
    expect(tokenInfo(chain, big).totalHolder).toBe(3001);

    const newcomer = (i: number) => testWallet(`holders newcomer ${i}`).address;
    const inSmall = await entriesRead(() => sendToken(chain, owner, small, newcomer(0), 1n));
    const inBig = await entriesRead(() => sendToken(chain, owner, big, newcomer(1), 1n));
    expect(inBig).toBe(inSmall);
    expect(inBig).toBeLessThanOrEqual(5);

    // Emptying a holder in the middle of the list unlinks it in constant work too.
    const middle = signers[1]!;
    await sendToken(chain, owner, big, middle.address, 1n);
    await mine(chain);
    const unlinkSmall = await entriesRead(async () => {
      await sendToken(chain, owner, small, middle.address, 1n);
      await mine(chain);
      await sendToken(chain, middle, small, owner.address, 1n);
    });
    const unlinkBig = await entriesRead(() => sendToken(chain, middle, big, owner.address, 1n));
    expect(unlinkBig).toBeLessThanOrEqual(unlinkSmall);
    expect(unlinkBig).toBeLessThanOrEqual(6);

    const pageRead = await entriesRead(async () =>
      tokenHolders(chain, big, { after: many[1500]!, max: 10 }),
    );
    expect(pageRead).toBe(1 + 1 + 10); // the token, the `after` holder, the page
  });
});
