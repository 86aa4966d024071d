import { formatCoins } from '@chain/rpc-client';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, hasBrowser, openBrowser, warnIfNoBrowser } from './harness/browser';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { call, type NodeProcess, startNode } from './harness/node-process';

// What the explorer's lists and pages tell a user beyond the raw fields, in headless Chromium on
// the real binary: IN/OUT/SELF in a wallet's operations, confirmations that count up as blocks come,
// payloads as text beside their hex, key-store state for the node's operator only, the block
// reward, and the blocks of one producer.
warnIfNoBrowser('the explorer lists test');

describe.skipIf(!hasBrowser)('explorer lists and block pages (Chromium)', () => {
  let node: NodeProcess;
  let dev: string;
  let chromium: Browser;
  let page: Page;

  beforeAll(async () => {
    node = await startNode({ args: ['--block-time', '300'] });
    dev = devWallet(node);
    chromium = await openBrowser();
    page = chromium.page;
  });

  afterAll(async () => {
    await chromium?.close();
    await node?.stop();
  });

  async function sendTo(receiver: string, amount: string, payload?: string) {
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver,
      amount,
      ...(payload === undefined ? {} : { payload }),
    });
    return mined(node, op.ophash);
  }

  async function newWallet(): Promise<string> {
    return (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })).wallet;
  }

  /** The row of an operations table that links `ophash`. */
  function rowOf(table: Locator, ophash: string): Locator {
    return table
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `operation ${ophash}` }) });
  }

  /** The text of a row's cell under the column `header`. */
  async function cellUnder(table: Locator, row: Locator, header: string): Promise<string> {
    const headers = await table.getByRole('columnheader').allTextContents();
    const index = headers.indexOf(header);
    expect(index, `column ${header} in ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
    return (await row.getByRole('cell').nth(index).textContent()) ?? '';
  }

  it("marks each of a wallet's operations IN, OUT or SELF relative to that wallet", async () => {
    const wallet = await newWallet();
    const received = await sendTo(wallet, '4');
    const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
      wallet: dev,
      passphrase: 'dev',
      function: true,
      name: 'Direction test',
      symbol: 'DIR',
      summary: 'minted to its own owner',
      totalAmount: '10',
      decimal: 0,
    });
    await mined(node, created.ophash);
    // The owner mints to itself: it signs and it receives.
    const mint = await call<OperationObject>(node.url, 'adminToken', {
      sender: dev,
      passphrase: 'dev',
      token: created.token,
      method: 'mintWalletVolume',
      receiver: dev,
      amount: '5',
    });
    const minted = await mined(node, mint.ophash);

    await page.goto(`${node.url}#/wallet/${wallet}`);
    const theirs = page.getByRole('table', { name: /^Operations of this wallet/ });
    await rowOf(theirs, received.ophash).waitFor();
    expect(await cellUnder(theirs, rowOf(theirs, received.ophash), 'Direction')).toBe('IN');

    await page.goto(`${node.url}#/`);
    await page.goto(`${node.url}#/wallet/${dev}`);
    const devs = page.getByRole('table', { name: /^Operations of this wallet/ });
    await rowOf(devs, minted.ophash).waitFor();
    expect(await cellUnder(devs, rowOf(devs, received.ophash), 'Direction')).toBe('OUT');
    expect(await cellUnder(devs, rowOf(devs, minted.ophash), 'Direction')).toBe('SELF');
    // The mark says what it means on hover.
    expect(
      await rowOf(devs, received.ophash).getByText('OUT', { exact: true }).getAttribute('title'),
    ).toMatch(/sends/);

    // Lists that are nobody's in particular have no direction column.
    await page.goto(`${node.url}#/`);
    const latest = page.getByRole('table', { name: 'Latest operations' });
    await rowOf(latest, minted.ophash).waitFor();
    expect(await latest.getByRole('columnheader').allTextContents()).not.toContain('Direction');
    expect(chromium.errors).toEqual([]);
  });

  it('counts confirmations (head - block + 1) and keeps counting as blocks arrive', async () => {
    const wallet = await newWallet();
    const op = await sendTo(wallet, '1.5');
    await page.goto(`${node.url}#/wallet/${wallet}`);
    const table = page.getByRole('table', { name: /^Operations of this wallet/ });
    const row = rowOf(table, op.ophash);
    await row.waitFor();
    const expected = async () => (await call<number>(node.url, 'getBlockCount')) - op.block;
    expect(await cellUnder(table, row, 'Confirmations')).toBe(String(await expected()));

    // Two more blocks, of operations this page does not list: the count follows without a reload.
    for (const amount of ['0.1', '0.2']) await sendTo(await newWallet(), amount);
    const now = await expected();
    expect(now).toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => cellUnder(table, row, 'Confirmations'), { timeout: 10_000 })
      .toBe(String(now));

    // The operation page says it too, and so does the home page's list.
    await row.getByRole('link', { name: `operation ${op.ophash}` }).click();
    await page
      .getByRole('region', { name: 'Details' })
      .getByText(`(${now} confirmations)`, { exact: false })
      .waitFor();
    await page.goto(`${node.url}#/`);
    const latest = page.getByRole('table', { name: 'Latest operations' });
    await rowOf(latest, op.ophash).waitFor();
    expect(await cellUnder(latest, rowOf(latest, op.ophash), 'Confirmations')).toBe(String(now));
    expect(chromium.errors).toEqual([]);
  });

  it('shows a payload as text beside its hex when it is printable UTF-8, as text only', async () => {
    const text = 'héllo <b id="injected">bold</b> & "quotes" ✓';
    const hex = Buffer.from(text, 'utf8').toString('hex');
    const op = await sendTo(await newWallet(), '0.5', hex);
    await page.goto(`${node.url}#/op/${op.ophash}`);
    const senders = page.getByRole('table', { name: 'Senders' });
    await senders.getByText(hex, { exact: false }).waitFor();
    const shown = senders.locator('[data-payload-text]');
    expect(await shown.textContent()).toBe(` text: “${text}”`);
    // Shown as text, never as markup.
    expect(await page.locator('#injected').count()).toBe(0);

    // Bytes that are not UTF-8 text (a NUL, an invalid sequence, a bidi override): hex only.
    for (const bytes of ['00ff41', 'c328', Buffer.from('a\u202eb').toString('hex')]) {
      const binary = await sendTo(await newWallet(), '0.25', bytes);
      await page.goto(`${node.url}#/op/${binary.ophash}`);
      const table = page.getByRole('table', { name: 'Senders' });
      await table.getByText(bytes, { exact: false }).waitFor();
      expect(await table.locator('[data-payload-text]').count(), bytes).toBe(0);
    }
    expect(chromium.errors).toEqual([]);
  });

  it("shows key-store state to the node's operator only", async () => {
    // The operator: the page from 127.0.0.1, through no proxy.
    await page.goto(`${node.url}#/wallet/${dev}`);
    const facts = page.getByRole('region', { name: 'Balance and state' });
    const term = facts.locator('[data-spec="key_state"]');
    await term.waitFor();
    expect(await term.textContent()).toBe('Key store');
    await facts.getByText("in this node's key store, unlocked", { exact: false }).waitFor();
    const locked = await newWallet();
    await call(node.url, 'lockWallet', { wallet: locked });
    await page.goto(`${node.url}#/wallet/${locked}`);
    await facts.getByText("in this node's key store, locked", { exact: false }).waitFor();

    // A visitor: the same node behind a reverse proxy (its forwarding header on every request).
    const visitor = await chromium.context.newPage();
    try {
      await visitor.setExtraHTTPHeaders({ 'x-forwarded-for': '203.0.113.7' });
      await visitor.goto(`${node.url}#/wallet/${dev}`);
      const seen = visitor.getByRole('region', { name: 'Balance and state' });
      await seen.getByText('Address', { exact: true }).waitFor();
      await seen
        .getByText(
          "Whether this wallet is in the node's key store is shown to the node's operator only.",
        )
        .waitFor();
      expect(await seen.locator('[data-spec="key_state"]').count()).toBe(0);
      expect(await seen.getByText(/key store, (un)?locked/).count()).toBe(0);
    } finally {
      await visitor.close();
    }
    expect(chromium.errors).toEqual([]);
  });

  it("shows a block's reward: a genesis producer's block pays its fees and mints nothing", async () => {
    const op = await sendTo(await newWallet(), '2');
    const info = await call<{ trx_fee: string; reward: string; subsidy: string }>(
      node.url,
      'getBlockInfo',
      { block: op.block },
    );
    expect(info).toMatchObject({ reward: info.trx_fee, subsidy: '0' });
    await page.goto(`${node.url}#/block/${op.block}`);
    const header = page.getByRole('region', { name: 'Header' });
    const reward = header.locator('[data-spec="reward"]');
    expect(await reward.textContent()).toBe('Reward');
    const fee = `${formatCoins(BigInt(info.trx_fee))} coins`;
    await header.getByText(`${fee} (subsidy 0 coins + fees ${fee})`, { exact: true }).waitFor();
    expect(chromium.errors).toEqual([]);
  });

  it('lists the blocks a producer produced, from its block, and adds new ones as they come', async () => {
    const op = await sendTo(await newWallet(), '3');
    await page.goto(`${node.url}#/block/${op.block}`);
    await page
      .getByRole('region', { name: 'Header' })
      .getByRole('link', { name: `blocks produced by ${dev}` })
      .click();
    await expect.poll(() => page.title()).toBe('Blocks produced · chain-node explorer');
    // The page says how it reads them: a bounded number of blocks per click.
    await page
      .getByText(/reads block headers from the newest back, 1000 blocks each time/)
      .waitFor();
    const height = await call<number>(node.url, 'getBlockCount');
    const list = page.getByRole('table', { name: `Blocks produced in blocks 1 to ${height - 1}` });
    await list.getByRole('link', { name: String(op.block), exact: true }).waitFor();
    // The lone dev node produced every block but the genesis block.
    expect(await list.getByRole('row').count()).toBe(height - 1 + 1);
    await page
      .getByText(`${height - 1} of blocks 1 to ${height - 1} produced by this wallet.`)
      .waitFor();
    // All of this short chain was read at once: nothing further back to ask for.
    expect(await page.getByRole('button', { name: /further back/ }).isVisible()).toBe(false);

    const next = await sendTo(await newWallet(), '0.5');
    await page
      .getByRole('table', { name: `Blocks produced in blocks 1 to ${next.block}` })
      .getByRole('link', { name: String(next.block), exact: true })
      .waitFor({ timeout: 10_000 });
    expect(chromium.errors).toEqual([]);
  });
});
