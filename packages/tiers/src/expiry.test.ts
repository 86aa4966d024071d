import { COIN, type TestWallet } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HardwareDescription } from './hardware';
import { signMineConsent } from './mine-consent';
import { nodeCodeOf } from './node-code';
import { openTiersChain, type TiersChain, testWallet } from './testing/tiers-chain';
import { nodePart } from './views';

// Participations last `lockTime` blocks (6 here): then they end, unless `extension` is set or the
// node has sub-nodes, in which case another period starts.

const LOCK = 6;
const hardware: HardwareDescription = { CPU: 'c', RAM: 'r', GPU: 'g', DISK: 'd' };
const [topA, topB, topC, child, mineA, filler] = ['A', 'B', 'C', 'child', 'mineA', 'filler'].map(
  (label) => testWallet(`expiry ${label}`),
) as [TestWallet, TestWallet, TestWallet, TestWallet, TestWallet, TestWallet];

let t: TiersChain;
let start: number;
const codes: Record<string, string> = {};

const locked = (x: TestWallet) => t.chain.accountByAddress(x.address)!.volumeLock;
const notParticipating = expect.objectContaining({ code: 1010, reason: 'NOT_PARTICIPATING' });

async function joinTop(who: TestWallet, extension: boolean): Promise<string> {
  const op = await t.step('nodeStep1', who, {
    stake: 100n * COIN,
    miner: who.hash160,
    penalty: 0,
    extension,
  });
  const code = nodeCodeOf(t.chain.accountByAddress(who.address)!.number, op.n_operation);
  await t.step('nodeStep2', who, { code, hardware });
  return code;
}

/** Filler blocks until the head is at `height`. */
async function advanceTo(height: number): Promise<void> {
  while (t.chain.head().height < height) {
    await t.pay(filler, 1n);
    await t.block();
  }
}

beforeAll(async () => {
  t = await openTiersChain({ 'tiers.lockTime': LOCK });
  await t.fund([topA, topB, topC, child, mineA], 1000n * COIN);
  codes.A = await joinTop(topA, false);
  await t.step('blockchainStart', topA, {
    code: codes.A,
    mine: mineA.hash160,
    share: topA.hash160,
    nodes: '',
    mineConsent: signMineConsent(t.chain.genesisHash, codes.A, mineA.privateKey),
  });
  codes.B = await joinTop(topB, true);
  codes.C = await joinTop(topC, false);
  await t.step('nodeStep3_1', child, {
    code: codes.C,
    stake: 10n * COIN,
    miner: child.hash160,
    confirmer: topC.hash160,
    extension: true,
  });
  start = await t.block();
  t.producerKeys.push(mineA.privateKey);
});

afterAll(async () => {
  await t?.cleanup();
});

describe('expiry', () => {
  it('keeps every participation for lockTime blocks', async () => {
    await advanceTo(start + LOCK - 1);
    for (const who of [topA, topB, topC, child]) {
      expect(nodePart(t.chain, who.address).lockTime).toBe(start + LOCK);
    }
    expect(t.chain.producers()).toHaveLength(2);
  });

  it('ends one without extension or sub-nodes; renews the others', async () => {
    await advanceTo(start + LOCK);
    expect(() => nodePart(t.chain, topA.address)).toThrow(notParticipating);
    expect(locked(topA)).toBe(0n);
    expect(t.chain.producers()).toEqual([0]);
    t.producerKeys.pop();
    // B by its extension, C because a sub-node participates, the sub-node by its extension.
    for (const who of [topB, topC, child]) {
      expect(nodePart(t.chain, who.address).lockTime).toBe(start + 2 * LOCK);
    }
    expect(locked(topC)).toBe(100n * COIN);
  });

  it('ends a TOP node at its next period once its sub-nodes have gone', async () => {
    // A request nobody approved is withdrawn without penalty.
    const before = t.chain.accountByAddress(child.address)!.balance;
    await t.step('nodeCancel', child, { code: codes.C });
    await t.block();
    expect(t.chain.accountByAddress(child.address)!.balance).toBe(before - t.chain.actPrice);
    expect(locked(child)).toBe(0n);
    await advanceTo(start + 2 * LOCK);
    expect(() => nodePart(t.chain, topC.address)).toThrow(notParticipating);
    expect(locked(topC)).toBe(0n);
    expect(nodePart(t.chain, topB.address).lockTime).toBe(start + 3 * LOCK);
    expect(locked(topB)).toBe(100n * COIN);
  });
});
