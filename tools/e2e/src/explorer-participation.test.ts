import { formatCoins } from '@chain/rpc-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, hasBrowser, openBrowser, warnIfNoBrowser } from './harness/browser';
import { activate, COIN, devWallet, mined, type OperationObject } from './harness/chain';
import { call, type NodeProcess, startNode } from './harness/node-process';

// The explorer's participation pages in headless Chromium, on a tree made through the real steps
// (as in participation.test.ts: the dev network's genesis, a block per submission).
warnIfNoBrowser('the explorer participation test');

describe.skipIf(!hasBrowser)('participation tree in the explorer (Chromium)', () => {
  let node: NodeProcess;
  let chromium: Browser;
  let page: Page;
  let code: string;
  const w: Record<string, string> = {};

  async function step(method: string, params: Record<string, unknown>): Promise<OperationObject> {
    const op = await call<OperationObject>(node.url, method, params);
    return mined(node, op.ophash);
  }

  beforeAll(async () => {
    node = await startNode({ args: ['--block-time', '0'] });
    const dev = devWallet(node);
    const labels = ['top', 'topMiner', 'm1', 'm1Miner', 'm2', 'm2Miner', 'b1', 'b1Miner'];
    for (const label of labels) {
      w[label] = (
        await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })
      ).wallet;
    }
    for (const label of ['top', 'm1', 'm2', 'b1']) {
      await step('sendTo', { sender: dev, passphrase: 'dev', receiver: w[label], amount: '500' });
      await activate(node, w[label]!);
    }
    const joined = await step('nodeStep1', {
      wallet: w.top,
      amount: '100',
      passphrase: 'pw',
      miner: w.topMiner,
    });
    code = /node code ([0-9a-f]{16})$/.exec(joined.optxt)![1]!;
    await step('nodeStep2', { code, wallet: w.top, passphrase: 'pw' });
    const askMiddle = (label: string) =>
      step('nodeStep3_1', {
        code,
        wallet: w[label],
        amount: '30',
        passphrase: 'pw',
        miner: w[`${label}Miner`],
        confirmer: w.top,
      });
    await askMiddle('m1');
    await askMiddle('m2');
    const decide = { select: true, code, confirmer: w.top, passphrase: 'pw', target: w.m1 };
    await step('nodeStep3_2', decide);
    await step('nodeStep4_1', { code, wallet: w.m1, passphrase: 'pw', confirmer: w.top });
    await step('nodeStep4_2', decide);
    await step('nodeStep5_1', {
      code,
      wallet: w.b1,
      amount: '7',
      passphrase: 'pw',
      miner: w.b1Miner,
      main: w.top,
      confirmer: w.m1,
    });
    await step('nodeStep5_2', {
      select: true,
      code,
      main: w.top,
      confirmer: w.m1,
      passphrase: 'pw',
      target: w.b1,
    });
    chromium = await openBrowser();
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await node?.stop();
  });

  const tree = () => page.getByRole('list', { name: 'Participation tree' });
  const item = (role: string, label: string) =>
    page.getByRole('listitem', { name: `${role} node ${w[label]}`, exact: true });

  it('lists the TOP node from the nav and shows its tree: TOP -> MIDDLE -> BOTTOM with states', async () => {
    await page.goto(node.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Participation' })
      .click();
    await expect.poll(() => page.title()).toBe('Participation · chain-node explorer');
    const topNodes = page.getByRole('table', { name: /^TOP nodes that joined in blocks 0 to / });
    await topNodes.getByRole('cell', { name: code, exact: true }).waitFor();
    await topNodes.getByRole('link', { name: `participation tree of ${w.top}` }).click();

    await tree().waitFor();
    const top = tree().getByRole('listitem', { name: `TOP node ${w.top}`, exact: true });
    await top.getByText('state TR (H/W checked, ready to start)').first().waitFor();
    // MIDDLE nodes inside the TOP's item, the BOTTOM inside its MIDDLE's.
    const m1 = top.getByRole('listitem', { name: `MIDDLE node ${w.m1}`, exact: true });
    await m1.getByText('state MA (participating)').first().waitFor();
    await m1.getByText('stake 30 coins').first().waitFor();
    const b1 = m1.getByRole('listitem', { name: `BOTTOM node ${w.b1}`, exact: true });
    await b1.getByText('state BA (participating)').waitFor();
    await b1.getByText('stake 7 coins').waitFor();
    await b1.getByRole('link', { name: `wallet ${w.b1Miner}` }).waitFor();
    const m2 = top.getByRole('listitem', { name: `MIDDLE node ${w.m2}`, exact: true });
    await m2.getByText('state MW (waiting for approval by its TOP)').waitFor();
    expect(await item('BOTTOM', 'b1').count()).toBe(1);
    expect(await tree().getByRole('listitem').count()).toBe(4);
    const facts = page.getByRole('region', { name: 'Participation' });
    await facts.getByText(code, { exact: true }).waitFor();
    expect(chromium.errors).toEqual([]);
  });

  it('follows the tree live: a step taken while it is shown appears without a reload', async () => {
    await step('nodeStep3_2', {
      select: true,
      code,
      confirmer: w.top,
      passphrase: 'pw',
      target: w.m2,
    });
    await item('MIDDLE', 'm2')
      .getByText('state MH (approved, its H/W check is due)')
      .waitFor({ timeout: 10_000 });
    expect(chromium.errors).toEqual([]);
  });

  it("reaches a BOTTOM node's tree from its wallet page, finding its TOP node", async () => {
    await page.goto(`${node.url}#/wallet/${w.b1}`);
    const part = page.getByRole('region', { name: 'Participation' });
    await part.getByText(/^This wallet is a BOTTOM node, state BA/).waitFor();
    await part.getByRole('link', { name: 'Participation tree' }).click();
    await expect.poll(() => page.title()).toBe('Participation · chain-node explorer');
    await item('BOTTOM', 'b1').getByText('(this wallet)').waitFor();
    await item('TOP', 'top').waitFor();
    expect(chromium.errors).toEqual([]);
  });

  it('says when a wallet takes no part in a tree', async () => {
    await page.goto(`${node.url}#/wallet/${w.topMiner}`);
    // A miner wallet serves its node: the page says whose.
    await page
      .getByRole('region', { name: 'Participation' })
      .getByText(`This wallet is a miner wallet of TOP node ${w.top}`, { exact: false })
      .waitFor();
    const { wallet: stranger } = await call<{ wallet: string }>(node.url, 'newWallet', {
      passphrase: 'pw',
    });
    await page.goto(`${node.url}#/participation/${stranger}`);
    await page.getByText('this wallet neither participates nor serves a participation').waitFor();
    expect(chromium.errors).toEqual([]);
  });

  it("lists a TOP node's mine wallet among the producers from its blockchainStart", async () => {
    const dev = devWallet(node);
    await step('sendTo', { sender: dev, passphrase: 'dev', receiver: w.topMiner, amount: '10' });
    await activate(node, w.topMiner!);
    const started = await step('blockchainStart', {
      code,
      wallet: w.top,
      passphrase: 'pw',
      mine: w.topMiner,
      minepass: 'pw',
      share: w.top,
      nodes: '',
    });
    // A few blocks more, signed in turn by the genesis producer and the new mine wallet.
    for (let i = 0; i < 4; i++) {
      await step('sendTo', { sender: dev, passphrase: 'dev', receiver: w.m2, amount: '1' });
    }
    await page.goto(`${node.url}#/producers`);
    const producers = page.getByRole('table', { name: /^Producers of blocks 1 to \d+$/ });
    const mine = producers
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `wallet ${w.topMiner}` }) });
    await mine.getByRole('cell', { name: 'TOP node mine wallet', exact: true }).waitFor();
    await mine.getByRole('link', { name: String(started.block), exact: true }).waitFor();
    await mine.getByText(`(node code ${code})`, { exact: false }).waitFor();
    expect(
      Number((await mine.getByRole('cell').nth(3).textContent())!.split(' ')[0]),
    ).toBeGreaterThan(0);
    const genesis = producers
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `wallet ${dev}` }) });
    await genesis.getByRole('cell', { name: 'genesis producer', exact: true }).waitFor();
    expect(chromium.errors).toEqual([]);
  });

  it("shows a TOP node's block reward (subsidy and fees) and lists that producer's blocks", async () => {
    const count = await call<number>(node.url, 'getBlockCount');
    const infos = [];
    for (let block = 1; block < count; block++) {
      infos.push(await call<BlockReward>(node.url, 'getBlockInfo', { block }));
    }
    const byMiner = infos.filter((info) => info.hmr === w.topMiner);
    expect(byMiner.length).toBeGreaterThan(0);
    const block = byMiner.at(-1)!;
    // The dev network's genesis: 2 coins minted per block of a started TOP node, with its fees.
    expect(block.subsidy).toBe('2000000000000000000');
    expect(BigInt(block.reward)).toBe(2n * COIN + BigInt(block.trx_fee));

    await page.goto(`${node.url}#/block/${block.block}`);
    const header = page.getByRole('region', { name: 'Header' });
    const fee = `${formatCoins(BigInt(block.trx_fee))} coins`;
    const reward = `${formatCoins(BigInt(block.reward))} coins`;
    await header.getByText(`${reward} (subsidy 2 coins + fees ${fee})`, { exact: true }).waitFor();

    await header.getByRole('link', { name: `blocks produced by ${w.topMiner}` }).click();
    const list = page.getByRole('table', { name: /^Blocks produced in blocks 1 to \d+$/ });
    await list.getByRole('link', { name: String(block.block), exact: true }).waitFor();
    // Its blocks only, each with its reward.
    expect(await list.getByRole('row').count()).toBe(byMiner.length + 1);
    await list
      .getByText(`${reward} (subsidy 2 coins + fees ${fee})`, { exact: true })
      .first()
      .waitFor();
    const genesisBlock = infos.find((info) => info.hmr !== w.topMiner)!;
    expect(
      await list.getByRole('link', { name: String(genesisBlock.block), exact: true }).count(),
    ).toBe(0);
    expect(chromium.errors).toEqual([]);
  });
});

interface BlockReward {
  block: number;
  hmr: string;
  trx_fee: string;
  reward: string;
  subsidy: string;
}
