import { COIN, devWallet, type TestWallet } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HardwareDescription } from './hardware';
import { signMineConsent } from './mine-consent';
import { nodeCodeOf } from './node-code';
import { tiersParams } from './params';
import { openTiersChain, type TiersChain, testWallet } from './testing/tiers-chain';
import { bottomList, middleList, nodePart } from './views';

// The whole procedure on a real chain (LevelDB in a temp dir): order and authority rules, stakes,
// rewards, penalties, and a replay of the blocks on a second chain that must reach the same state.

const hardware: HardwareDescription = {
  CPU: '{"brand":"test","cores":2}',
  RAM: '{"total":1024}',
  GPU: '{"controllers":[]}',
  DISK: '{"devices":[]}',
};

const w = Object.fromEntries(
  ['top', 'topMiner', 'mine', 'share', 'm1', 'm1Miner', 'm2', 'm2Miner']
    .concat(['b1', 'b1Miner', 'b2', 'b2Miner', 'idle', 'stranger'])
    .map((label) => [label, testWallet(label)]),
) as Record<string, TestWallet>;

const rule = (reason: string, param: string) =>
  expect.objectContaining({ code: 1060, reason, param });

let t: TiersChain;
let code: string;
/** The chain right after blockchainStart, for the rollback check. */
let afterStart: { height: number; root: Uint8Array };
const ACT = 10n ** 14n;

beforeAll(async () => {
  t = await openTiersChain({ 'tiers.lockTime': 1000, 'tiers.maturity': 2 });
  await t.fund([w.top!, w.mine!, w.m1!, w.m2!, w.b1!, w.b2!, w.idle!], 1000n * COIN);
});

afterAll(async () => {
  await t?.cleanup();
});

const balance = (x: TestWallet) => t.chain.accountByAddress(x.address)?.balance ?? 0n;
const locked = (x: TestWallet) => t.chain.accountByAddress(x.address)?.volumeLock ?? 0n;
const accountOf = (x: TestWallet) => t.chain.accountByAddress(x.address)!.number;

function joinTop(stake: bigint, penalty = 10, extension = false) {
  return t.step('nodeStep1', w.top!, { stake, miner: w.topMiner!.hash160, penalty, extension });
}

describe('the three-tier procedure', () => {
  it('TOP node: stake checks, node code in optxt, stake in volume_lock, H/W check', async () => {
    await expect(joinTop(99n * COIN)).rejects.toThrow(rule('STAKE_TOO_SMALL', 'amount'));
    await expect(joinTop(1000n * COIN)).rejects.toThrow(
      expect.objectContaining({ code: 1031, param: 'amount' }),
    );
    const op = await joinTop(100n * COIN);
    code = nodeCodeOf(accountOf(w.top!), op.n_operation);
    expect(op).toMatchObject({ optype: 8, subtype: 0, amount: String(100n * COIN) });
    expect(op.optxt.endsWith(code)).toBe(true);
    await t.block();
    expect(locked(w.top!)).toBe(100n * COIN);
    expect(nodePart(t.chain, w.top!.address)).toEqual({
      nodeIndex: 0,
      penalty: 10,
      nodeWallet: w.top!.address,
      minerWallet: w.topMiner!.address,
      state: 'TH',
      startTimestamp: expect.any(Number),
      lockTime: expect.any(Number),
      code,
    });
    // Found by its miner wallet too.
    expect(nodePart(t.chain, w.topMiner!.address).nodeWallet).toBe(w.top!.address);
    await expect(joinTop(100n * COIN)).rejects.toThrow(rule('ALREADY_PARTICIPATING', 'wallet'));

    const middleTooEarly = t.step('nodeStep3_1', w.m1!, {
      code,
      stake: 30n * COIN,
      miner: w.m1Miner!.hash160,
      confirmer: w.top!.hash160,
      extension: false,
    });
    await expect(middleTooEarly).rejects.toThrow(rule('STEP_OUT_OF_ORDER', 'confirmer'));
    await expect(t.step('nodeStep2', w.m1!, { code, hardware })).rejects.toThrow(
      rule('NOT_TOP_WALLET', 'wallet'),
    );
    await expect(
      t.step('nodeStep2', w.top!, { code: '0000000000000000', hardware }),
    ).rejects.toThrow(expect.objectContaining({ code: 1010, reason: 'UNKNOWN_CODE' }));
    const check = await t.step('nodeStep2', w.top!, { code, hardware });
    expect(check).toMatchObject({ optype: 9, ...hardware });
    expect(check.senders[0]).toMatchObject({ account: w.top!.address, amount: '0' });
    expect(check.optxt.endsWith(code)).toBe(true);
    await t.block();
    await expect(t.step('nodeStep2', w.top!, { code, hardware })).rejects.toThrow(
      rule('STEP_OUT_OF_ORDER', 'wallet'),
    );
    expect(nodePart(t.chain, w.top!.address).state).toBe('TR');
  });

  it('MIDDLE nodes: only the TOP node approves them and their H/W; a rejection frees the stake', async () => {
    const ask = (who: TestWallet, miner: TestWallet, stake: bigint, confirmer = w.top!) =>
      t.step('nodeStep3_1', who, {
        code,
        stake,
        miner: miner.hash160,
        confirmer: confirmer.hash160,
        extension: false,
      });
    await expect(ask(w.m1!, w.m1Miner!, 30n * COIN, w.m2)).rejects.toThrow(
      rule('NOT_TOP_CONFIRMER', 'confirmer'),
    );
    await expect(ask(w.m1!, w.m1Miner!, 9n * COIN)).rejects.toThrow(
      rule('STAKE_TOO_SMALL', 'amount'),
    );
    await expect(ask(w.m1!, w.topMiner!, 30n * COIN)).rejects.toThrow(
      rule('WALLET_IN_USE', 'miner'),
    );
    const asked = await ask(w.m1!, w.m1Miner!, 30n * COIN);
    expect(asked).toMatchObject({ optype: 14, amount: String(30n * COIN) });
    await ask(w.m2!, w.m2Miner!, 20n * COIN);
    await t.block();
    // Entries in account order (the wallets were funded in the order top, mine, m1, m2, b1, b2).
    expect(middleList(t.chain, code, w.top!.address)).toEqual([
      { wallet: w.m1!.address, amount: String(30n * COIN), state: 'Waiting for approval.' },
      { wallet: w.m2!.address, amount: String(20n * COIN), state: 'Waiting for approval.' },
    ]);
    expect(() => middleList(t.chain, code, w.m1!.address)).toThrow(
      rule('NOT_TOP_WALLET', 'wallet'),
    );

    const decide = (
      step: 'nodeStep3_2' | 'nodeStep4_2',
      signer: TestWallet,
      target: TestWallet,
      select: boolean,
    ) => t.step(step, signer, { code, target: target.hash160, select });
    await expect(decide('nodeStep3_2', w.m2!, w.m1!, true)).rejects.toThrow(
      rule('NOT_TOP_CONFIRMER', 'confirmer'),
    );
    await expect(
      t.step('nodeStep4_1', w.m1!, { code, confirmer: w.top!.hash160, hardware }),
    ).rejects.toThrow(rule('STEP_OUT_OF_ORDER', 'wallet'));
    await expect(decide('nodeStep3_2', w.top!, w.idle!, true)).rejects.toThrow(
      expect.objectContaining({ code: 1010, reason: 'NOT_PARTICIPATING', param: 'target' }),
    );
    const approved = await decide('nodeStep3_2', w.top!, w.m1!, true);
    const rejected = await decide('nodeStep3_2', w.top!, w.m2!, false);
    expect(approved).toMatchObject({ optype: 15 });
    expect(approved.optxt).toMatch(/approves MIDDLE/);
    expect(rejected.optxt).toMatch(/rejects MIDDLE .*stake is released/);
    expect(rejected.optxt.endsWith(code)).toBe(true);
    await t.block();
    expect(locked(w.m2!)).toBe(0n);
    expect(() => nodePart(t.chain, w.m2!.address)).toThrow(
      expect.objectContaining({ reason: 'NOT_PARTICIPATING' }),
    );
    expect(middleList(t.chain, code, w.top!.address)).toEqual([
      { wallet: w.m1!.address, amount: String(30n * COIN), state: 'Waiting for H/W check.' },
    ]);

    await expect(
      t.step('nodeStep4_1', w.m1!, { code, confirmer: w.m2!.hash160, hardware }),
    ).rejects.toThrow(rule('NOT_TOP_CONFIRMER', 'confirmer'));
    const check = await t.step('nodeStep4_1', w.m1!, { code, confirmer: w.top!.hash160, hardware });
    expect(check).toMatchObject({ optype: 16, ...hardware });
    expect(check.receivers).toEqual([{ account: w.top!.address, amount: '0' }]);
    await t.block();
    expect(middleList(t.chain, code, w.top!.address)[0]!.state).toBe('Waiting for H/W approval.');
    await decide('nodeStep4_2', w.top!, w.m1!, true);
    await t.block();
    expect(middleList(t.chain, code, w.top!.address)[0]!.state).toBe('Participating.');
    expect(nodePart(t.chain, w.m1!.address)).toMatchObject({ state: 'MA', nodeIndex: 1, code });
  });

  it('BOTTOM nodes: only a participating MIDDLE node approves them, under the right main', async () => {
    const ask = (
      who: TestWallet,
      miner: TestWallet,
      stake: bigint,
      main: TestWallet,
      confirmer: TestWallet,
    ) =>
      t.step('nodeStep5_1', who, {
        code,
        stake,
        miner: miner.hash160,
        main: main.hash160,
        confirmer: confirmer.hash160,
        extension: false,
      });
    await expect(ask(w.b1!, w.b1Miner!, 7n * COIN, w.m1!, w.m1!)).rejects.toThrow(
      rule('WRONG_MAIN', 'main'),
    );
    await expect(ask(w.b1!, w.b1Miner!, 7n * COIN, w.top!, w.m2!)).rejects.toThrow(
      rule('NOT_MIDDLE_CONFIRMER', 'confirmer'),
    );
    await ask(w.b1!, w.b1Miner!, 7n * COIN, w.top!, w.m1!);
    await ask(w.b2!, w.b2Miner!, 3n * COIN, w.top!, w.m1!);
    await t.block();
    expect(bottomList(t.chain, code, w.top!.address, w.m1!.address).map((e) => e.state)).toEqual([
      'Waiting for approval.',
      'Waiting for approval.',
    ]);
    expect(() => bottomList(t.chain, code, w.m1!.address, w.m1!.address)).toThrow(
      rule('WRONG_MAIN', 'main'),
    );
    const decide = (signer: TestWallet, target: TestWallet, main = w.top!) =>
      t.step('nodeStep5_2', signer, {
        code,
        main: main.hash160,
        target: target.hash160,
        select: true,
      });
    await expect(decide(w.top!, w.b1!)).rejects.toThrow(rule('NOT_MIDDLE_CONFIRMER', 'confirmer'));
    await expect(decide(w.m1!, w.b1!, w.m1!)).rejects.toThrow(rule('WRONG_MAIN', 'main'));
    const approved = await decide(w.m1!, w.b1!);
    expect(approved).toMatchObject({ optype: 19, subtype: 0 });
    await decide(w.m1!, w.b2!);
    await t.block();
    expect(bottomList(t.chain, code, w.top!.address, w.m1!.address)).toEqual([
      { wallet: w.b1!.address, amount: String(7n * COIN), state: 'Participating.' },
      { wallet: w.b2!.address, amount: String(3n * COIN), state: 'Participating.' },
    ]);
  });

  it('blockchainStart makes the mine wallet a producer, once, with its consent', async () => {
    const start = (mine: TestWallet, consentKey = mine.privateKey, startCode = code) =>
      t.step('blockchainStart', w.top!, {
        code: startCode,
        mine: mine.hash160,
        share: w.share!.hash160,
        nodes: '10.0.0.1; 10.0.0.2',
        mineConsent: signMineConsent(t.chain.genesisHash, startCode, consentKey),
      });
    await expect(start(w.stranger!)).rejects.toThrow(rule('MINE_NOT_ACTIVE', 'mine'));
    await expect(start(w.mine!, w.idle!.privateKey)).rejects.toThrow(
      rule('BAD_MINE_CONSENT', 'mine'),
    );
    await expect(start(w.m1!)).rejects.toThrow(rule('WALLET_IN_USE', 'mine'));
    await expect(
      t.step('blockchainStart', w.top!, {
        code,
        mine: w.mine!.hash160,
        share: w.share!.hash160,
        nodes: '10.0.0.300',
        mineConsent: signMineConsent(t.chain.genesisHash, code, w.mine!.privateKey),
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 1016, reason: 'BAD_NODES', param: 'nodes' }));
    const started = await start(w.mine!);
    expect(started).toMatchObject({ optype: 19, subtype: 1 });
    expect(started.optxt).toContain('10.0.0.1; 10.0.0.2');
    expect(started.optxt.endsWith(code)).toBe(true);
    afterStart = { height: await t.block(), root: t.chain.stateRoot() };
    t.producerKeys.push(w.mine!.privateKey);
    expect(t.chain.producers()).toEqual([0, accountOf(w.mine!)]);
    expect(nodePart(t.chain, w.top!.address).state).toBe('MN');
    expect(nodePart(t.chain, w.mine!.address).nodeWallet).toBe(w.top!.address);
    await expect(start(w.mine!)).rejects.toThrow(rule('ALREADY_STARTED', 'code'));
  });

  it('rewards a block by the mine wallet: split by the params, pro rata by stake, time-locked', async () => {
    const miners = [w.topMiner!, w.share!, w.m1Miner!, w.b1Miner!, w.b2Miner!];
    await t.untilTurnOf(w.mine!.privateKey, w.stranger!);
    const before = miners.map(balance);
    await t.pay(w.stranger!, COIN);
    const height = await t.block(w.mine!.privateKey);
    // Hand computation: reward = subsidy 2 coins + one fee of 10^14 = 2000100000000000000.
    // Share 10% = 200010000000000000; participants 30% = 600030000000000000 split by stakes
    // 30 : 7 : 3 (of 40) = 450022500000000000, 105005250000000000, 45002250000000000;
    // the miner gets the other 60% = 1200060000000000000.
    const expected = [
      1200060000000000000n,
      200010000000000000n,
      450022500000000000n,
      105005250000000000n,
      45002250000000000n,
    ];
    const after = miners.map(balance);
    expect(after.map((b, i) => b - before[i]!)).toEqual(expected);
    expect(t.chain.accountByAddress(w.topMiner!.address)!.timelocks).toEqual([
      { amount: 1200060000000000000n, untilBlock: height + 2 },
    ]);
    expect(t.chain.accountByAddress(w.share!.address)!.volumeTimelock).toBe(200010000000000000n);
    // A genesis producer's block (the dev wallet's turn comes next) pays its fees only, at once.
    const devBefore = t.chain.accountByNumber(0)!.balance;
    await t.pay(w.stranger!, COIN);
    expect(t.chain.producerAccount(devWallet.privateKey)).toBe(0);
    await t.block(devWallet.privateKey);
    expect(t.chain.accountByNumber(0)!.balance).toBe(devBefore - COIN);
    // Two blocks after the reward it has matured; the mine wallet's next block earns the same again.
    await t.pay(w.stranger!, COIN);
    expect(await t.block(w.mine!.privateKey)).toBe(height + 2);
    const topMiner = t.chain.accountByAddress(w.topMiner!.address)!;
    expect(topMiner.balance - before[0]!).toBe(2n * expected[0]!);
    expect(topMiner.volumeTimelock).toBe(expected[0]);
    const share = t.chain.accountByAddress(w.share!.address)!;
    expect(share.volumeTimelock).toBe(expected[1]);
    expect(share.spendable).toBe(share.balance - expected[1]!);
  });

  it('nodeCancel: refused with sub-nodes; the penalty goes to the others to the last base unit', async () => {
    const cancel = (who: TestWallet) => t.step('nodeCancel', who, { code });
    await expect(cancel(w.m1!)).rejects.toThrow(rule('HAS_SUB_NODES', 'wallet'));
    await expect(cancel(w.top!)).rejects.toThrow(rule('HAS_SUB_NODES', 'wallet'));
    await expect(cancel(w.idle!)).rejects.toThrow(
      expect.objectContaining({ code: 1010, reason: 'NOT_PARTICIPATING', param: 'wallet' }),
    );
    const recipients = [w.top!, w.m1!, w.b1!];
    const before = recipients.map(balance);
    const b2Before = balance(w.b2!);
    const op = await cancel(w.b2!);
    expect(op).toMatchObject({ optype: 19, subtype: 2 });
    expect(op.optxt.endsWith(code)).toBe(true);
    await t.block();
    // 10% of 3 coins = 3 * 10^17 shared by stakes 100 : 30 : 7 (of 137): exact shares
    // 218978102189781021.90, 65693430656934306.57, 15328467153284671.53; the floors leave 2 units,
    // which go to the two largest remainders (TOP node, then m1).
    expect(recipients.map((r, i) => balance(r) - before[i]!)).toEqual([
      218978102189781022n,
      65693430656934307n,
      15328467153284671n,
    ]);
    expect(b2Before - balance(w.b2!)).toBe(3n * 10n ** 17n + ACT);
    expect(locked(w.b2!)).toBe(0n);

    await cancel(w.b1!);
    await t.block();
    const topBefore = balance(w.top!);
    await cancel(w.m1!);
    await t.block();
    // m1's penalty (3 coins) all goes to the only other participant left.
    expect(balance(w.top!) - topBefore).toBe(3n * COIN);
    expect(locked(w.m1!)).toBe(0n);

    // The TOP node's own cancel, in a block its mine wallet signs (issue 42): the block is still a
    // TOP node's block, as its reward is decided by the state the block started from. So the
    // subsidy is minted and split as for any of its blocks, every part time-locked; nothing goes
    // to the mine wallet itself.
    await t.untilTurnOf(w.mine!.privateKey, w.stranger!);
    const { subsidy, rewardSharePercent, maturity } = tiersParams(t.genesis);
    const [minerBefore, shareBefore, mineBefore] = [w.topMiner!, w.share!, w.mine!].map(balance);
    const topBalance = balance(w.top!);
    await cancel(w.top!);
    const height = await t.block(w.mine!.privateKey);
    const reward = subsidy + ACT;
    const sharePart = (reward * BigInt(rewardSharePercent)) / 100n;
    expect(subsidy).toBeGreaterThan(0n);
    expect(balance(w.topMiner!) - minerBefore!).toBe(reward - sharePart);
    expect(balance(w.share!) - shareBefore!).toBe(sharePart);
    expect(balance(w.mine!)).toBe(mineBefore);
    expect(t.chain.accountByAddress(w.topMiner!.address)!.timelocks).toContainEqual({
      amount: reward - sharePart,
      untilBlock: height + maturity,
    });
    // Nobody is left to share a penalty with: the whole stake returns; mining stops.
    expect(balance(w.top!)).toBe(topBalance - ACT);
    expect(locked(w.top!)).toBe(0n);
    expect(t.chain.producers()).toEqual([0]);
    expect(() => nodePart(t.chain, w.mine!.address)).toThrow(
      expect.objectContaining({ reason: 'NOT_PARTICIPATING' }),
    );
  });

  it('replays to the same state on another chain, and rolls back to an earlier one', async () => {
    const other = await openTiersChain({ 'tiers.lockTime': 1000, 'tiers.maturity': 2 });
    try {
      for (let h = 1; h < t.chain.blockCount(); h++) {
        await other.chain.importBlock((await t.chain.getBlockBytes(h))!);
      }
      expect(other.chain.stateRoot()).toEqual(t.chain.stateRoot());
      await other.chain.rollback(afterStart.height);
      expect(other.chain.stateRoot()).toEqual(afterStart.root);
      expect(other.chain.producers()).toEqual([0, accountOf(w.mine!)]);
      expect(nodePart(other.chain, w.b2!.address)).toMatchObject({ state: 'BA', code });
      expect(other.chain.accountByAddress(w.top!.address)!.volumeLock).toBe(100n * COIN);
    } finally {
      await other.cleanup();
    }
  });
});
