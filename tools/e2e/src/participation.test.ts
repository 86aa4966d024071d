import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  COIN,
  devWallet,
  expectOperationShape,
  mined,
  type OperationObject,
  type WalletInfo,
} from './harness/chain';
import { call, makeDatadir, type NodeProcess, post, rpc, startNode } from './harness/node-process';

// The Participating node group through the real binary on the dev network, whose genesis sets
// small participation parameters: subsidy 2 coins, share 10%, participants 30% (miner the rest),
// maturity 4 blocks, lockTime 30 blocks, least stakes 100 / 10 / 1 coins. A block time of 0 makes a
// block per submission, so the tests move the chain forward with transfers.

const SUBSIDY = 2n * COIN;
const MATURITY = 4;
const LOCK_TIME = 30;

let node: NodeProcess;
let datadir: string;
let dev: string;
let actPrice: bigint;
const w: Record<string, string> = {};
let code: string;
let code2: string;

async function start(): Promise<void> {
  node = await startNode({ datadir, args: ['--block-time', '0'] });
}

beforeAll(async () => {
  datadir = await makeDatadir();
  await start();
  dev = devWallet(node);
  actPrice = BigInt(await call<number>(node.url, 'getActPrice'));
  const labels = [
    ...['top', 'topMiner', 'share', 'mine', 'top2', 'mine2', 'm1', 'm1Miner', 'm2', 'm2Miner'],
    ...['b1', 'b1Miner', 'b2', 'b2Miner', 'stranger'],
  ];
  for (const label of labels) {
    w[label] = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })).wallet;
  }
  const signers = ['top', 'mine', 'top2', 'mine2', 'm1', 'm2', 'b1', 'b2'];
  // One at a time, so account numbers follow this order.
  for (const label of signers) await send(w[label]!, label.startsWith('top') ? '1000' : '100');
  await Promise.all(signers.map((label) => activate(node, w[label]!)));
});

afterAll(async () => {
  await node?.stop();
  if (datadir) await rm(datadir, { recursive: true, force: true });
});

/** A transfer from the dev wallet, mined. */
async function send(receiver: string, amount = '1'): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, 'sendTo', {
    sender: dev,
    passphrase: 'dev',
    receiver,
    amount,
  });
  return mined(node, op.ophash);
}

/** A participation step, checked for shape and node code, then mined. */
async function step(method: string, params: Record<string, unknown>): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, method, params);
  return mined(node, op.ophash);
}

async function refused(
  method: string,
  params: Record<string, unknown>,
  reason: string,
  param: string,
  errorCode = 1060,
) {
  const reply = await rpc(node.url, method, params);
  expect(reply.error, `${method} should be refused with ${reason}`).toMatchObject({
    code: errorCode,
    data: { reason, param },
  });
}

const info = (wallet: string) => call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
const balance = async (wallet: string) => BigInt((await info(wallet)).balance);
const head = async () => (await call<number>(node.url, 'getBlockCount')) - 1;

interface ListEntry {
  wallet: string;
  amount: string;
  state: string;
}

interface NodePart {
  nodeIndex: number;
  penalty: number;
  nodeWallet: string;
  minerWallet: string;
  state: string;
  startTimestamp: number;
  lockTime: number;
  code: string;
}

async function nodePart(wallet: string): Promise<NodePart> {
  const reply = await rpc(node.url, 'getNodePart', { wallet }, 5);
  const nested = reply.result as { result: NodePart; id: unknown; jsonrpc: string };
  expect(nested.id).toBe(5);
  expect(nested.jsonrpc).toBe('2.0');
  return nested.result;
}

async function expectEnded(wallet: string) {
  const reply = await rpc(node.url, 'getNodePart', { wallet });
  expect(reply.error).toMatchObject({ code: 1010, data: { reason: 'NOT_PARTICIPATING' } });
}

const codeOf = (op: OperationObject) => /node code ([0-9a-f]{16})$/.exec(op.optxt)![1]!;

const signerOf = async (block: number) =>
  (await call<{ hmr: string }>(node.url, 'getBlockInfo', { block })).hmr;

interface Producer {
  wallet: string;
  account: number;
}

/** The dev wallet (the genesis producer, account 0) and the given mine wallets, by account number. */
async function producerSet(mineWallets: readonly string[]): Promise<Producer[]> {
  const producers = [{ wallet: dev, account: 0 }];
  for (const wallet of mineWallets)
    producers.push({ wallet, account: (await info(wallet)).account });
  return producers.sort((a, b) => a.account - b.account);
}

/**
 * The wallet in turn after a block signed by `parent` (Clique rotation, DESIGN §4 as refined in
 * docs/decisions.md): the producer with the next account number, wrapping around.
 */
function inTurnAfter(producers: readonly Producer[], parent: string): string {
  const index = producers.findIndex((p) => p.wallet === parent);
  expect(index, `${parent} is a producer`).toBeGreaterThanOrEqual(0);
  return producers[(index + 1) % producers.length]!.wallet;
}

describe('the three-tier procedure', () => {
  it('TOP node: nodeStep1 (8) stakes into volume_lock, nodeStep2 (9) records the H/W', async () => {
    const join = { wallet: w.top, passphrase: 'pw', miner: w.topMiner, penalty: 10 };
    await refused('nodeStep1', { ...join, amount: '99' }, 'STAKE_TOO_SMALL', 'amount');
    await refused('nodeStep1', { ...join, amount: '5000' }, 'INSUFFICIENT_FUNDS', 'amount', 1031);
    await refused(
      'nodeStep1',
      { ...join, amount: '100', passphrase: 'x' },
      'WRONG_PASSPHRASE',
      'passphrase',
      1030,
    );
    const joined = await step('nodeStep1', { ...join, amount: '100' });
    expectOperationShape(joined);
    expect(joined).toMatchObject({ optype: 8, amount: String(100n * COIN), signer_account: w.top });
    code = codeOf(joined);
    expect((await info(w.top!)).volume_lock).toBe(String(100n * COIN));

    const part = await nodePart(w.top!);
    expect(Object.keys(part).sort()).toEqual([
      'code',
      'lockTime',
      'minerWallet',
      'nodeIndex',
      'nodeWallet',
      'penalty',
      'startTimestamp',
      'state',
    ]);
    expect(part).toMatchObject({
      nodeIndex: 0,
      penalty: 10,
      nodeWallet: w.top,
      minerWallet: w.topMiner,
      state: 'TH',
      lockTime: joined.block + LOCK_TIME,
      code,
    });
    expect(part.startTimestamp).toBe(joined.time);

    await refused(
      'nodeStep3_1',
      { code, wallet: w.m1, amount: '30', passphrase: 'pw', miner: w.m1Miner, confirmer: w.top },
      'STEP_OUT_OF_ORDER',
      'confirmer',
    );
    await refused(
      'nodeStep2',
      { code, wallet: w.m1, passphrase: 'pw' },
      'NOT_TOP_WALLET',
      'wallet',
    );
    const checked = await step('nodeStep2', { code, wallet: w.top, passphrase: 'pw' });
    expect(checked).toMatchObject({ optype: 9, signer_account: w.top });
    expect(codeOf(checked)).toBe(code);
    for (const field of ['CPU', 'RAM', 'GPU', 'DISK']) {
      expect(typeof (checked as unknown as Record<string, unknown>)[field]).toBe('string');
    }
    const cpu = JSON.parse((checked as unknown as { CPU: string }).CPU);
    expect(cpu.cores).toBeGreaterThan(0);
    expect(checked.senders[0]).toMatchObject({ account: w.top, amount: '0' });
    expect((await nodePart(w.top!)).state).toBe('TR');
  });

  it('MIDDLE nodes: asked (14), one approved (15) with its H/W (16, 17), one rejected', async () => {
    const ask = (label: string, amount: string) =>
      step('nodeStep3_1', {
        code,
        wallet: w[label],
        amount,
        passphrase: 'pw',
        miner: w[`${label}Miner`],
        confirmer: w.top,
      });
    const asked = await ask('m1', '30');
    expect(asked).toMatchObject({ optype: 14, amount: String(30n * COIN) });
    expect(codeOf(asked)).toBe(code);
    await ask('m2', '20');
    expect(await call<ListEntry[]>(node.url, 'nodeStepMDList', { code, wallet: w.top })).toEqual([
      { wallet: w.m1, amount: String(30n * COIN), state: 'Waiting for approval.' },
      { wallet: w.m2, amount: String(20n * COIN), state: 'Waiting for approval.' },
    ]);

    const decide = (target: string, select: unknown, confirmer = w.top) => ({
      select,
      code,
      confirmer,
      passphrase: 'pw',
      target,
    });
    await refused('nodeStep3_2', decide(w.m1!, true, w.m2), 'NOT_TOP_CONFIRMER', 'confirmer');
    await refused(
      'nodeStep4_1',
      { code, wallet: w.m1, passphrase: 'pw', confirmer: w.top },
      'STEP_OUT_OF_ORDER',
      'wallet',
    );
    expect(await step('nodeStep3_2', decide(w.m1!, true))).toMatchObject({ optype: 15 });
    // select as a string, as the spec's examples sometimes send it.
    const rejected = await step('nodeStep3_2', decide(w.m2!, 'false'));
    expect(rejected.optxt).toMatch(
      /rejects MIDDLE node .* stake is released, node code [0-9a-f]{16}$/,
    );
    expect((await info(w.m2!)).volume_lock).toBe('0');
    await expectEnded(w.m2!);
    expect(await call<ListEntry[]>(node.url, 'nodeStepMDList', { code, wallet: w.top })).toEqual([
      { wallet: w.m1, amount: String(30n * COIN), state: 'Waiting for H/W check.' },
    ]);

    const hw = await step('nodeStep4_1', {
      code,
      wallet: w.m1,
      passphrase: 'pw',
      confirmer: w.top,
    });
    expect(hw).toMatchObject({ optype: 16, receivers: [{ account: w.top, amount: '0' }] });
    expect(typeof (hw as unknown as { DISK: unknown }).DISK).toBe('string');
    expect(
      (await call<ListEntry[]>(node.url, 'nodeStepMDList', { code, wallet: w.top }))[0]!.state,
    ).toBe('Waiting for H/W approval.');
    expect(await step('nodeStep4_2', decide(w.m1!, true))).toMatchObject({ optype: 17 });
    expect(
      (await call<ListEntry[]>(node.url, 'nodeStepMDList', { code, wallet: w.top }))[0]!.state,
    ).toBe('Participating.');
    expect(await nodePart(w.m1Miner!)).toMatchObject({
      nodeWallet: w.m1,
      state: 'MA',
      nodeIndex: 1,
    });
  });

  it('BOTTOM nodes: asked (18) under the right main, approved by their MIDDLE node (19/0)', async () => {
    const ask = (label: string, amount: string, main = w.top) => ({
      code,
      wallet: w[label],
      amount,
      passphrase: 'pw',
      miner: w[`${label}Miner`],
      main,
      confirmer: w.m1,
      // Renewed at each lockTime: they stay until they cancel.
      extension: true,
    });
    await refused('nodeStep5_1', ask('b1', '7', w.m1), 'WRONG_MAIN', 'main');
    expect(await step('nodeStep5_1', ask('b1', '7'))).toMatchObject({ optype: 18 });
    await step('nodeStep5_1', ask('b2', '3'));
    const list = () =>
      call<ListEntry[]>(node.url, 'nodeStepBTList', { code, main: w.top, wallet: w.m1 });
    expect((await list()).map((e) => [e.wallet, e.amount, e.state])).toEqual([
      [w.b1, String(7n * COIN), 'Waiting for approval.'],
      [w.b2, String(3n * COIN), 'Waiting for approval.'],
    ]);
    const approve = (target: string, confirmer = w.m1) => ({
      select: true,
      code,
      main: w.top,
      confirmer,
      passphrase: 'pw',
      target,
    });
    await refused('nodeStep5_2', approve(w.b1!, w.top), 'NOT_MIDDLE_CONFIRMER', 'confirmer');
    expect(await step('nodeStep5_2', approve(w.b1!))).toMatchObject({ optype: 19, subtype: 0 });
    await step('nodeStep5_2', approve(w.b2!));
    expect((await list()).map((e) => e.state)).toEqual(['Participating.', 'Participating.']);
  });

  it("blockchainStart (19/1) with the spec's repeated `mine` key makes the mine wallet a producer", async () => {
    const body = `{"jsonrpc":"2.0","method":"blockchainStart","id":1,"params":{"code":"${code}","wallet":"${w.top}","passphrase":"pw","mine":"${w.mine}","minepass":"pw","mine":"${w.share}","nodes":"10.0.0.1;10.0.0.2"}}`;
    const reply = (await post(node.url, body)).json as { result: OperationObject };
    expect(reply.result).toMatchObject({ optype: 19, subtype: 1, signer_account: w.top });
    expect(reply.result.receivers).toEqual([{ account: w.mine }, { account: w.share }]);
    const started = await mined(node, reply.result.ophash);
    expect(started.optxt).toContain('10.0.0.1;10.0.0.2');
    expect(await nodePart(w.mine!)).toMatchObject({ nodeWallet: w.top, state: 'MN', code });
    await refused(
      'blockchainStart',
      {
        code,
        wallet: w.top,
        passphrase: 'pw',
        mine: w.mine,
        minepass: 'pw',
        share: w.share,
        nodes: '',
      },
      'ALREADY_STARTED',
      'code',
    );
  });

  it('pays rewards per DESIGN §4: split by the params, pro rata by stake, time-locked until maturity', async () => {
    const first = (await head()) + 1;
    for (let i = 0; i < 6; i++) await send(w.stranger!);
    const last = await head();
    // Hand computation per block by the mine wallet: reward R = subsidy + fees; share wallet 10%,
    // participants 30% split by stake m1 : b1 : b2 = 30 : 7 : 3 (fees are multiples of 10^14, so
    // every division below is exact), the miner wallet the remaining 60%.
    const totals = { topMiner: 0n, share: 0n, m1Miner: 0n, b1Miner: 0n, b2Miner: 0n };
    const locked = { ...totals };
    let mineBlocks = 0;
    for (let h = first; h <= last; h++) {
      const block = await call<{ hmr: string; trx_fee: string }>(node.url, 'getBlockInfo', {
        block: h,
      });
      if (block.hmr !== w.mine) continue;
      mineBlocks++;
      const reward = SUBSIDY + BigInt(block.trx_fee);
      const participants = (reward * 30n) / 100n;
      expect((participants * 30n) % 40n).toBe(0n);
      const parts = {
        topMiner: reward - (reward * 10n) / 100n - participants,
        share: (reward * 10n) / 100n,
        m1Miner: (participants * 30n) / 40n,
        b1Miner: (participants * 7n) / 40n,
        b2Miner: (participants * 3n) / 40n,
      };
      for (const key of Object.keys(parts) as (keyof typeof parts)[]) {
        totals[key] += parts[key];
        if (h + MATURITY > last) locked[key] += parts[key];
      }
    }
    expect(mineBlocks).toBeGreaterThanOrEqual(2);
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) {
      const wallet = await info(w[key]!);
      expect([key, wallet.balance, wallet.volume_timelock]).toEqual([
        key,
        String(totals[key]),
        String(locked[key]),
      ]);
    }
    // Older rewards have matured: part of the balance is no longer time-locked.
    expect(locked.topMiner).toBeLessThan(totals.topMiner);
  });

  it("with two TOP nodes started, each block is the turn of the producer after its parent's", async () => {
    const joined = await step('nodeStep1', {
      wallet: w.top2,
      amount: '100',
      passphrase: 'pw',
      miner: w.top2,
    });
    code2 = codeOf(joined);
    await step('nodeStep2', { code: code2, wallet: w.top2, passphrase: 'pw' });
    const started = await step('blockchainStart', {
      code: code2,
      wallet: w.top2,
      passphrase: 'pw',
      mine: w.mine2,
      minepass: 'pw',
      share: w.top2,
      nodes: '',
    });
    // The genesis producer (the dev wallet, account 0) stays in the set beside the two mine wallets.
    const producers = await producerSet([w.mine!, w.mine2!]);
    for (let i = 0; i < 7; i++) await send(w.stranger!);
    const last = await head();
    // In phase from the very block after the one that grew the set: the successor of any producer
    // is never the one that just signed, so the recent-signer rule never bars it.
    const signers: string[] = [];
    let parent = await signerOf(started.block);
    for (let h = started.block + 1; h <= last; h++) {
      const signer = await signerOf(h);
      expect(signer, `block ${h}`).toBe(inTurnAfter(producers, parent));
      signers.push(signer);
      parent = signer;
    }
    expect(signers.length).toBeGreaterThanOrEqual(7);
    expect(new Set(signers)).toEqual(new Set([dev, w.mine, w.mine2]));
    // The two mine wallets take turns: never one twice without the other in between.
    const mines = signers.filter((s) => s !== dev);
    for (let i = 1; i < mines.length; i++) expect(mines[i]).not.toBe(mines[i - 1]);
  });

  it('after a restart warns about unloaded mine keys; unlockWallet loads them again', async () => {
    await node.stop();
    await start();
    const warning = node.stdout();
    expect(warning).toContain('key is not loaded');
    expect(warning).toContain(w.mine);
    expect(warning).toContain(w.mine2);
    const producers = await producerSet([w.mine!, w.mine2!]);
    // Blocks by the dev key go on until a mine wallet is in turn; then the chain waits for it.
    while (inTurnAfter(producers, await signerOf(await head())) === dev) await send(w.stranger!);
    const waiting = inTurnAfter(producers, await signerOf(await head()));
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: w.stranger,
      amount: '1',
    });
    // Well within the producer's out-of-turn delay (1.5 s and more), after which the dev key would
    // step in for the silent mine wallet.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await call<number>(node.url, 'getPendingCount')).toBe(1);
    expect(await call(node.url, 'unlockWallet', { wallet: waiting, passphrase: 'pw' })).toBe(true);
    const signed = await mined(node, op.ophash);
    expect(
      (await call<{ hmr: string }>(node.url, 'getBlockInfo', { block: signed.block })).hmr,
    ).toBe(waiting);
    const other = waiting === w.mine ? w.mine2! : w.mine!;
    await call(node.url, 'unlockWallet', { wallet: other, passphrase: 'pw' });
    for (let i = 0; i < 3; i++) await send(w.stranger!);
  });

  it('nodeCancel (19/2): refused with sub-nodes, then the penalty is shared to the last base unit', async () => {
    const cancel = (wallet: string) => ({ code, wallet, passphrase: 'pw' });
    await refused('nodeCancel', cancel(w.m1!), 'HAS_SUB_NODES', 'wallet');
    await refused('nodeCancel', cancel(w.top!), 'HAS_SUB_NODES', 'wallet');

    const others = [w.top!, w.m1!, w.b1!];
    const before = await Promise.all(others.map(balance));
    const b2Before = await balance(w.b2!);
    const cancelled = await step('nodeCancel', cancel(w.b2!));
    expect(cancelled).toMatchObject({ optype: 19, subtype: 2 });
    expect(codeOf(cancelled)).toBe(code);
    // Penalty 10% of 3 coins = 3 * 10^17 base units, shared by stake 100 : 30 : 7 (of 137). Exact
    // shares 218978102189781021.90, 65693430656934306.57 and 15328467153284671.53: the floors leave
    // 2 units, which go to the largest remainders (the TOP node, then m1).
    const after = await Promise.all(others.map(balance));
    expect(after.map((b, i) => b - before[i]!)).toEqual([
      218978102189781022n,
      65693430656934307n,
      15328467153284671n,
    ]);
    expect(b2Before - (await balance(w.b2!))).toBe(3n * 10n ** 17n + actPrice);
    expect((await info(w.b2!)).volume_lock).toBe('0');
    await expectEnded(w.b2!);

    await step('nodeCancel', cancel(w.b1!));
    const topBefore = await balance(w.top!);
    await step('nodeCancel', cancel(w.m1!));
    // m1's penalty, 10% of 30 coins, goes whole to the only other participant.
    expect((await balance(w.top!)) - topBefore).toBe(3n * COIN);
    expect((await info(w.m1!)).volume_lock).toBe('0');
    // The TOP node's own cancel in a block its mine wallet signs (issue 42): the block's reward
    // follows the state the block started from, so it is still this TOP node's block: the
    // subsidy is minted and split as for its other blocks, time-locked; the mine wallet gets none.
    const producers = await producerSet([w.mine!, w.mine2!]);
    while (inTurnAfter(producers, await signerOf(await head())) !== w.mine) {
      await send(w.stranger!);
    }
    const [minerBefore, shareBefore, mineBefore] = await Promise.all(
      [w.topMiner!, w.share!, w.mine!].map(info),
    );
    const topBalance = await balance(w.top!);
    const topCancel = await step('nodeCancel', cancel(w.top!));
    const cancelBlock = await call<{ hmr: string; trx_fee: string }>(node.url, 'getBlockInfo', {
      block: topCancel.block,
    });
    expect(cancelBlock.hmr).toBe(w.mine);
    const reward = SUBSIDY + BigInt(cancelBlock.trx_fee);
    const sharePart = (reward * 10n) / 100n;
    const [minerAfter, shareAfter, mineAfter] = await Promise.all(
      [w.topMiner!, w.share!, w.mine!].map(info),
    );
    expect(BigInt(minerAfter.balance) - BigInt(minerBefore!.balance)).toBe(reward - sharePart);
    expect(BigInt(shareAfter.balance) - BigInt(shareBefore!.balance)).toBe(sharePart);
    expect(BigInt(minerAfter.volume_timelock)).toBeGreaterThanOrEqual(reward - sharePart);
    expect(mineAfter.balance).toBe(mineBefore!.balance);
    // Nobody is left to share a penalty with: the whole stake comes back; mining stops.
    expect(await balance(w.top!)).toBe(topBalance - actPrice);
    expect((await info(w.top!)).volume_lock).toBe('0');
    await expectEnded(w.mine!);
  });

  it('ends a participation after lockTime blocks, unless it has extension', async () => {
    // On a node of its own whose only producer is the dev wallet: the chain moves a block per
    // transfer without waiting on producer rotation.
    const main = node;
    const fresh = await startNode({ args: ['--block-time', '0'] });
    node = fresh;
    try {
      for (const label of ['topX', 'topY']) {
        w[label] = (
          await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })
        ).wallet;
        await send(w[label]!, '1000');
        await activate(node, w[label]!);
      }
      const x = await step('nodeStep1', {
        wallet: w.topX,
        amount: '100',
        passphrase: 'pw',
        miner: w.topX,
      });
      const y = await step('nodeStep1', {
        wallet: w.topY,
        amount: '100',
        passphrase: 'pw',
        miner: w.topY,
        extension: 'true',
      });
      expect((await nodePart(w.topX!)).lockTime).toBe(x.block + LOCK_TIME);
      while ((await head()) < x.block + LOCK_TIME - 1) await send(w.topY!);
      expect((await nodePart(w.topX!)).state).toBe('TH');
      while ((await head()) < y.block + LOCK_TIME) await send(w.topY!);
      await expectEnded(w.topX!);
      expect((await info(w.topX!)).volume_lock).toBe('0');
      expect(await nodePart(w.topY!)).toMatchObject({
        state: 'TH',
        lockTime: y.block + 2 * LOCK_TIME,
      });
      expect((await info(w.topY!)).volume_lock).toBe(String(100n * COIN));
    } finally {
      node = main;
      await fresh.stop();
    }
  });
});
