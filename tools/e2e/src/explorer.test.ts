import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Locator, Page, Request, WebSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, hasBrowser, openBrowser, warnIfNoBrowser } from './harness/browser';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { call, freePort, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

// The explorer page served at GET / of the RPC port, in headless Chromium (harness/browser.ts).
warnIfNoBrowser('the explorer browser test');

const SDK_BUNDLE = join(
  resolve(fileURLToPath(import.meta.url), '../../../..'),
  'apps/rpc-client/dist/index.js',
);

/** A page that uses the SDK bundle the way an app would, and leaves what it saw in `sdkCheck`. */
function sdkCheckPage(wallet: string): string {
  return `<!doctype html><html lang="en"><head><title>SDK check</title></head><body>
<script type="module">
import { createClient, ERROR_CODES, isRpcError, parseCoins } from './sdk.js';
const node = createClient({ url: new URL('/', location.href).href });
const [height, info] = await Promise.all([
  node.block.getBlockCount(),
  node.wallet.getWalletInfo({ wallet: ${JSON.stringify(wallet)} }),
]);
const error = await node.block.getBlockInfo({ block: 1e9 }).catch((caught) => caught);
window.sdkCheck = {
  height,
  balance: info.balance,
  oneAndAHalf: parseCoins('1.5').toString(),
  missingBlock: {
    isRpcError: isRpcError(error, ERROR_CODES.INVALID_BLOCK),
    code: error.code,
    reason: error.reason,
    param: error.param,
  },
};
</script></body></html>`;
}

describe.skipIf(!hasBrowser)('explorer page in headless Chromium', () => {
  let node: NodeProcess;
  let dev: string;
  let chromium: Browser;
  let browser: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    node = await startNode({ args: ['--block-time', '300'] });
    dev = devWallet(node);
    chromium = await openBrowser();
    ({ context: browser, page, errors: pageErrors } = chromium);
  });

  afterAll(async () => {
    await chromium?.close();
    await node?.stop();
  });

  async function send(amount: string): Promise<OperationObject> {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    return call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: wallet,
      amount,
    });
  }

  it('loads: landmarks, the latest blocks, no errors', async () => {
    await page.goto(node.url);
    await expect
      .poll(() => page.title())
      .toBe('Latest blocks and operations · chain-node explorer');
    expect(await page.getByRole('banner').count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('search').count()).toBe(1);
    const genesisRow = page
      .getByRole('table', { name: 'Latest blocks' })
      .getByRole('link', { name: '0', exact: true });
    await genesisRow.waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('draws the activity chart, which gains a point when a block is mined', async () => {
    const chart = page.getByRole('figure', { name: /^Operations per block/ });
    await chart.locator('canvas').first().waitFor();
    const height = await call<number>(node.url, 'getBlockCount');
    const before = await chartState(chart);
    expect(before).toMatchObject({ blocks: height, last: height - 1 });
    expect(before.inked).toBeGreaterThan(0);

    const op = await send('0.5');
    const { block } = await mined(node, op.ophash);
    await expect
      .poll(() => chart.getAttribute('data-last-block'), { timeout: 10_000 })
      .toBe(String(block));
    const after = await chartState(chart);
    expect(after.blocks).toBe(before.blocks + (block - before.last));
    expect(after.image).not.toBe(before.image);
    expect(await chart.locator('figcaption').textContent()).toContain(
      `Latest: block ${block}, 1 operation`,
    );
    expect(pageErrors).toEqual([]);
  });

  it('shows a block produced after it opened, without a reload', async () => {
    const before = await call<number>(node.url, 'getBlockCount');
    const op = await send('2.5');
    const { block } = await mined(node, op.ophash);
    expect(block).toBeGreaterThanOrEqual(before);
    const latest = page.getByRole('table', { name: 'Latest blocks' });
    await latest
      .getByRole('link', { name: String(block), exact: true })
      .waitFor({ timeout: 10_000 });
    await page
      .getByRole('table', { name: 'Latest operations' })
      .getByRole('link', { name: `operation ${(await findMined(op.ophash)).ophash}` })
      .waitFor({ timeout: 10_000 });
    expect(pageErrors).toEqual([]);
  });

  it('is fed by push: no periodic request, and a new block shows within a second', async () => {
    const sockets: WebSocket[] = [];
    page.on('websocket', (socket) => sockets.push(socket));
    await page.goto(node.url);
    const chart = page.getByRole('figure', { name: /^Operations per block/ });
    await chart.locator('canvas').first().waitFor();
    // One socket, to the node's own port: its upgrade carries the page's Origin, which is the node's.
    await expect.poll(() => sockets.length).toBe(1);
    expect(new URL(sockets[0]!.url()).host).toBe(new URL(node.url).host);
    const frames: string[] = [];
    sockets[0]!.on('framereceived', (frame) => frames.push(String(frame.payload)));

    // A quiet chain: for over twice the fallback's poll period, the page asks the node nothing.
    const requests: string[] = [];
    const onRequest = (request: Request) =>
      requests.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`);
    page.on('request', onRequest);
    await page.waitForTimeout(2.5 * 2000);
    expect(requests).toEqual([]);
    page.off('request', onRequest);

    const op = await send('0.125');
    const { block } = await mined(node, op.ophash);
    await page.locator(`figure[data-last-block="${block}"]`).waitFor({ timeout: 1_000 });
    await page
      .getByRole('table', { name: 'Latest blocks' })
      .getByRole('link', { name: String(block), exact: true })
      .waitFor({ timeout: 1_000 });
    const pushed = frames.map((frame) => JSON.parse(frame));
    expect(pushed).toContainEqual(
      expect.objectContaining({
        method: 'subscription',
        params: expect.objectContaining({ result: expect.objectContaining({ block }) }),
      }),
    );
    expect(pageErrors).toEqual([]);
  });

  it('polls instead when the push socket cannot connect', async () => {
    const fallback = await browser.newPage();
    try {
      // Every WebSocket of this page is closed at once, as by a proxy that does not pass upgrades.
      await fallback.routeWebSocket(/.*/, (socket) => socket.close());
      let heightAsks = 0;
      fallback.on('request', (request) => {
        if (request.postData()?.includes('"getBlockCount"')) heightAsks++;
      });
      await fallback.goto(node.url);
      await fallback.getByRole('figure', { name: /^Operations per block/ }).waitFor();
      const op = await send('0.0625');
      const { block } = await mined(node, op.ophash);
      await fallback.locator(`figure[data-last-block="${block}"]`).waitFor({ timeout: 10_000 });
      // The view's own load asks once; the poll asks again and again.
      await expect.poll(() => heightAsks, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    } finally {
      await fallback.close();
    }
  });

  it('finds an operation by ophash from the search box, by keyboard', async () => {
    const op = await send('3.25');
    const onChain = await mined(node, op.ophash);
    await page.getByLabel('Search', { exact: true }).fill(op.ophash);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title()).toBe('Operation · chain-node explorer');
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText(onChain.ophash, { exact: true }).waitFor();
    // In coins with the unit, exactly; the base units on hover.
    const amount = details.getByText('3.25 coins', { exact: true });
    expect(await amount.getAttribute('title')).toBe('3250000000000000000 base units');
    await details.getByRole('link', { name: String(onChain.block), exact: true }).waitFor();
    // After navigating, focus is on the new heading, so screen readers announce the new page.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Operation');
    expect(pageErrors).toEqual([]);
  });

  it('refuses a search that is nothing it knows, and says why', async () => {
    await page.getByLabel('Search', { exact: true }).fill('not a thing');
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .getByText(/Enter a block number or hash, an ophash/)
      .waitFor();
    expect(await page.getByLabel('Search', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
  });

  it('shows a wallet with its balance and operations', async () => {
    const op = await send('1.75');
    await mined(node, op.ophash);
    const receiver = op.receivers[0]!.account;
    await page.goto(`${node.url}#/wallet/${receiver}`);
    const facts = page.getByRole('region', { name: 'Balance and state' });
    await facts.getByText('1.75 coins', { exact: true }).waitFor();
    await page
      .getByRole('table', { name: /^Operations of this wallet/ })
      .getByRole('link', { name: `operation ${(await findMined(op.ophash)).ophash}` })
      .waitFor();
    expect(pageErrors).toEqual([]);
  });

  let token: string;
  let tokenHolder: string;
  let tokenSent: OperationObject;

  it('finds a token by its address and lists its holders', async () => {
    const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
      wallet: dev,
      passphrase: 'dev',
      function: true,
      name: 'Explorer test',
      symbol: 'EXT',
      summary: 'shown by the explorer',
      totalAmount: '1000',
      decimal: 2,
    });
    await mined(node, created.ophash);
    const { wallet: holder } = await call<{ wallet: string }>(node.url, 'newWallet', {
      passphrase: 'pw',
    });
    const sent = await call<OperationObject>(node.url, 'sendToken', {
      sender: dev,
      passphrase: 'dev',
      receiver: holder,
      amount: '0.25',
      token: created.token,
    });
    await mined(node, sent.ophash);
    await page.getByLabel('Search', { exact: true }).fill(created.token);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title()).toBe('Token EXT · chain-node explorer');
    const holders = page.getByRole('table', { name: 'Holders' });
    // Balances in tokens of 2 decimals (the node answers base units: 99975 and 25).
    const devRow = holders
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `wallet ${dev}` }) });
    const holderRow = holders
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `wallet ${holder}` }) });
    await holderRow.getByRole('cell', { name: '0.25 EXT', exact: true }).waitFor();
    await devRow.getByRole('cell', { name: '999.75 EXT', exact: true }).waitFor();
    expect(pageErrors).toEqual([]);
    token = created.token;
    tokenHolder = holder;
    tokenSent = await findMined(sent.ophash);
  });

  it('shows token amounts in token units with the symbol, and names and links the token', async () => {
    await page.goto(`${node.url}#/`);
    const row = page
      .getByRole('table', { name: 'Latest operations' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `operation ${tokenSent.ophash}` }) });
    await row.getByText('0.25 EXT', { exact: true }).waitFor();
    expect(await row.getByText('0.25 EXT', { exact: true }).getAttribute('title')).toBe(
      '25 base units',
    );
    await row.getByText('Token transfer', { exact: false }).waitFor();
    const tokenLink = row.getByRole('link', { name: `token EXT ${token}` });
    expect(await tokenLink.textContent()).toBe('EXT');

    // The operation page: the token named and linked, the amount in its units.
    await row.getByRole('link', { name: `operation ${tokenSent.ophash}` }).click();
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('0.25 EXT', { exact: true }).waitFor();
    // Named in the type and in its own row.
    await details
      .getByRole('link', { name: `token EXT ${token}` })
      .first()
      .click();
    await expect.poll(() => page.title()).toBe('Token EXT · chain-node explorer');
    expect(pageErrors).toEqual([]);
  });

  it('shows a token page with its operations and its supply history', async () => {
    const minted = await call<OperationObject>(node.url, 'adminToken', {
      sender: dev,
      passphrase: 'dev',
      token,
      method: 'mintWalletVolume',
      receiver: tokenHolder,
      amount: '10.5',
    });
    const mint = await mined(node, minted.ophash);
    // From another page: the previous test ended on this token's page.
    await page.goto(`${node.url}#/`);
    await page.goto(`${node.url}#/token/${token}`);
    const history = page.getByRole('table', { name: 'Supply history' });
    const mintRow = history
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: String(mint.block), exact: true }) });
    await mintRow.getByRole('cell', { name: 'Minted', exact: true }).waitFor();
    await mintRow.getByRole('cell', { name: '+10.5 EXT', exact: true }).waitFor();
    await mintRow.getByRole('cell', { name: '1010.5 EXT', exact: true }).waitFor();
    const createdRow = history.getByRole('row').filter({ hasText: 'Created' });
    await createdRow.getByRole('cell', { name: '+1000 EXT', exact: true }).waitFor();
    await createdRow.getByRole('cell', { name: '1000 EXT', exact: true }).waitFor();
    const ops = page.getByRole('table', { name: 'Operations of this token' });
    await ops.getByRole('link', { name: `operation ${tokenSent.ophash}` }).waitFor();
    await ops.getByRole('link', { name: `operation ${mint.ophash}` }).waitFor();
    // Supply, in token units; the spec's name of the field on hover.
    const supply = page.getByRole('region', { name: 'Token' }).locator('[data-spec="totalAmount"]');
    expect(await supply.textContent()).toBe('Supply');
    expect(await supply.getAttribute('title')).toBe('spec name: totalAmount');
    expect(pageErrors).toEqual([]);
  });

  it("shows a wallet's token balances", async () => {
    await page.goto(`${node.url}#/wallet/${tokenHolder}`);
    const balances = page.getByRole('table', { name: 'Token balances' });
    const row = balances
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `token EXT ${token}` }) });
    await row.getByRole('cell', { name: '10.75 EXT', exact: true }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('finds a token by its symbol, and a block by its hash, from the search box', async () => {
    await page.getByLabel('Search', { exact: true }).fill('ext');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title()).toBe('Token EXT · chain-node explorer');
    const info = await call<{ hash: string }>(node.url, 'getBlockInfo', { block: 2 });
    await page.getByLabel('Search', { exact: true }).fill(info.hash);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title()).toBe('Block 2 · chain-node explorer');
    await page.getByLabel('Search', { exact: true }).fill('NOPE');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('No token has the symbol NOPE.').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('shows plain labels with the spec names on hover, and links block hashes', async () => {
    await page.goto(`${node.url}#/block/3`);
    const header = page.getByRole('region', { name: 'Header' });
    for (const [spec, plain] of [
      ['hmr', 'Producer'],
      ['nopsp', 'Operations paying a fee'],
      ['one_hash', 'Previous block hash'],
      ['trx_fee', 'Fees'],
    ] as const) {
      const term = header.locator(`[data-spec="${spec}"]`);
      expect(await term.textContent()).toBe(plain);
      expect(await term.getAttribute('title')).toBe(`spec name: ${spec}`);
    }
    // The previous block's hash links to it.
    const previous = await call<{ hash: string }>(node.url, 'getBlockInfo', { block: 2 });
    await header.getByRole('link', { name: `previous block 2 hash ${previous.hash}` }).click();
    await expect.poll(() => page.title()).toBe('Block 2 · chain-node explorer');
    await page.goto(`${node.url}#/wallet/${dev}`);
    const facts = page.getByRole('region', { name: 'Balance and state' });
    expect(await facts.locator('[data-spec="updated_active"]').textContent()).toBe(
      'Last sent in block',
    );
    // The home page's block hashes link to their blocks.
    await page.goto(`${node.url}#/`);
    await page
      .getByRole('table', { name: 'Latest blocks' })
      .getByRole('link', { name: `block 2 hash ${previous.hash}` })
      .click();
    await expect.poll(() => page.title()).toBe('Block 2 · chain-node explorer');
    expect(pageErrors).toEqual([]);
  });

  it('shows relative times, the date on hover, and keeps them current', async () => {
    await page.goto(`${node.url}#/`);
    const age = page.getByRole('table', { name: 'Latest blocks' }).locator('time').first();
    await age.waitFor();
    expect(await age.textContent()).toMatch(/^(\d+ (s|min) ago|just now)$/);
    expect(await age.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // Block 0 carries the network's launch date: days ago.
    const genesis = page
      .getByRole('table', { name: 'Latest blocks' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: '0', exact: true }) });
    const unix = Number(await genesis.locator('time').getAttribute('data-unix'));
    expect(await genesis.locator('time').textContent()).toBe(
      `${Math.floor((Date.now() / 1000 - unix) / 86_400)} d ago`,
    );
  });

  it('shows the producers, and the genesis producers on the participation page', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Producers' })
      .click();
    await expect.poll(() => page.title()).toBe('Block producers · chain-node explorer');
    const height = await call<number>(node.url, 'getBlockCount');
    const producers = page.getByRole('table', { name: /^Producers of blocks 1 to \d+$/ });
    const row = producers
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `wallet ${dev}` }) });
    await row.getByRole('cell', { name: 'genesis producer', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'genesis (block 0)', exact: true }).waitFor();
    // A lone dev node: its genesis producer signed every block after block 0 (of those scanned).
    const signed = await row.getByRole('cell').nth(3).textContent();
    expect(signed).toMatch(/^\d+ \(100\.0%\)$/);
    expect(Number(signed!.split(' ')[0])).toBeGreaterThanOrEqual(height - 1);

    await page.goto(`${node.url}#/participation`);
    const genesis = page.getByRole('table', { name: 'Genesis producers' });
    await genesis.getByRole('link', { name: `wallet ${dev}` }).waitFor();
    expect(await page.getByText(/No TOP node joined in/).count()).toBe(0);
    await page.getByText(/No TOP node has joined yet/).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("draws the chart's last bar whole, shows the legend's values, and a grid for each scheme", async () => {
    await page.goto(`${node.url}#/`);
    const chart = page.getByRole('figure', { name: /^Operations per block/ });
    await chart.locator('canvas').first().waitFor();
    const last = Number(await chart.getAttribute('data-last-block'));
    // The x axis reaches half a block past the last one, so its bar is drawn whole.
    expect(Number(await chart.getAttribute('data-x-max'))).toBeGreaterThanOrEqual(last + 0.5);
    // With the cursor away, the legend shows the latest block's values, not "--".
    const values = await chart.locator('.u-legend .u-value').allTextContents();
    expect(values).toHaveLength(3);
    expect(values[0]).toBe(String(last));
    for (const value of values) expect(value).toMatch(/^(\d+|–)$/);
    // Light scheme, then dark: the chart redraws with the scheme's grid colour.
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => chart.getAttribute('data-grid')).toBe('#d0d7de');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => chart.getAttribute('data-grid')).toBe('#4a525c');
    await page.screenshot({ path: join(tmpdir(), 'chain-explorer-home-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(pageErrors).toEqual([]);
  });

  it('shows sync progress and peers on the Network page', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Network' })
      .press('Enter');
    await expect.poll(() => page.title()).toBe('Network · chain-node explorer');
    const sync = page.getByRole('region', { name: 'Sync progress' });
    await sync.getByText(/^in sync at block \d+$/).waitFor();
    expect(await sync.getByRole('progressbar').getAttribute('value')).toBe('100');
    // A single node: no peer (or, before the network group exists, a clear "not available yet").
    await page
      .getByRole('region', { name: 'Peers' })
      .getByText(
        /^(Not connected to any peer|Peer information is not available on this node yet)\.$/,
      )
      .waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('loads its script from the build, content-addressed and kept by the browser', async () => {
    const html = await (await fetch(node.url)).text();
    const src = /<script src="(explorer\/app\.[0-9a-f]{16}\.js)" integrity="sha256-[^"]+">/.exec(
      html,
    )?.[1];
    expect(src).toBeDefined();
    const response = await fetch(new URL(src!, node.url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    const built = await readFile(
      join(
        resolve(fileURLToPath(import.meta.url), '../../../..'),
        'apps/node/dist/explorer/app.js',
      ),
    );
    expect(Buffer.from(await response.arrayBuffer()).equals(built)).toBe(true);
  });

  // Late in the file: its 102 blocks push block 0 out of the latest blocks, which tests above read.
  it("pages a wallet's operations by the history index, and shows its first ones in one click", async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const deposits: OperationObject[] = [];
    for (let i = 0; i < 102; i++) {
      deposits.push(
        await call<OperationObject>(node.url, 'sendTo', {
          sender: dev,
          passphrase: 'dev',
          receiver: wallet,
          amount: '0.01',
        }),
      );
    }
    const oldest = await mined(node, deposits[0]!.ophash);
    await mined(node, deposits.at(-1)!.ophash);
    await page.goto(`${node.url}#/wallet/${wallet}`);
    await page.getByRole('button', { name: 'Look 100 operations further back' }).waitFor();
    await page.getByRole('button', { name: 'Show its first operations' }).click();
    await page
      .getByRole('table', { name: /^The first 100 operations of this wallet/ })
      .getByRole('link', { name: `operation ${oldest.ophash}` })
      .waitFor();
    await page.getByRole('button', { name: 'Look 100 operations further back' }).click();
    await page
      .getByRole('table', { name: /^Operations of this wallet: all of them/ })
      .getByRole('link', { name: `operation ${oldest.ophash}` })
      .waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('runs the SDK bundle unchanged in the browser, against the node', async () => {
    // The published build of @chain/rpc-client, loaded as an ES module by a page of the node's own
    // origin (served by the test through Playwright's routing, so it needs no CORS).
    const bundle = await readFile(SDK_BUNDLE, 'utf8');
    const sdkPage = await browser.newPage();
    try {
      await sdkPage.route(`${node.url}sdk-check/**`, (route) => {
        const isBundle = route.request().url().endsWith('/sdk.js');
        return route.fulfill({
          contentType: isBundle ? 'text/javascript' : 'text/html',
          body: isBundle ? bundle : sdkCheckPage(dev),
        });
      });
      await sdkPage.goto(`${node.url}sdk-check/index.html`);
      await sdkPage.waitForFunction(() => 'sdkCheck' in window, undefined, { timeout: 10_000 });
      const outcome = await sdkPage.evaluate(() => (window as { sdkCheck?: unknown }).sdkCheck);
      const info = await call<{ balance: string }>(node.url, 'getWalletInfo', { wallet: dev });
      expect(outcome).toEqual({
        height: await call<number>(node.url, 'getBlockCount'),
        balance: info.balance,
        oneAndAHalf: '1500000000000000000',
        missingBlock: { isRpcError: true, code: 1003, reason: 'BLOCK_NOT_FOUND', param: 'block' },
      });
    } finally {
      await sdkPage.close();
    }
  });

  /** What the chart shows: its block count and latest block, its pixels and how many are inked. */
  async function chartState(chart: Locator) {
    const canvas = chart.locator('canvas').first();
    const pixels = await canvas.evaluate((element: HTMLCanvasElement) => {
      const { data } = element.getContext('2d')!.getImageData(0, 0, element.width, element.height);
      let inked = 0;
      for (let alpha = 3; alpha < data.length; alpha += 4) if (data[alpha]! > 0) inked++;
      return { image: element.toDataURL(), inked };
    });
    return {
      blocks: Number(await chart.getAttribute('data-blocks')),
      last: Number(await chart.getAttribute('data-last-block')),
      ...pixels,
    };
  }

  async function findMined(ophash: string): Promise<OperationObject> {
    const [found] = await call<OperationObject[]>(node.url, 'findOperation', { ophash });
    return found!;
  }
});

describe.skipIf(!hasBrowser)('explorer page when the node goes away (Chromium)', () => {
  let node: NodeProcess;
  let chromium: Browser;
  let page: Page;
  let datadir: string;
  let port: number;

  beforeAll(async () => {
    datadir = await makeDatadir();
    port = await freePort();
    node = await startNode({ args: ['--block-time', '300'], datadir, rpcPort: port });
    chromium = await openBrowser();
    ({ page } = chromium);
  });

  afterAll(async () => {
    await chromium?.close();
    await node?.stop();
  });

  it('says the node went away while on push, and resumes when it is back', async () => {
    await page.goto(node.url);
    const chart = page.getByRole('figure', { name: /^Operations per block/ });
    await chart.locator('canvas').first().waitFor();
    await page
      .getByRole('status')
      .getByText(/^Block \d+ is the latest\.$/)
      .waitFor();

    await node.stop();
    const alert = page.getByRole('alert').filter({ hasText: 'Lost the connection to the node' });
    await alert.waitFor({ timeout: 10_000 });
    await page.getByRole('status').getByText('Not connected to the node: retrying…').waitFor();

    node = await startNode({ args: ['--block-time', '300'], datadir, rpcPort: port });
    await alert.waitFor({ state: 'hidden', timeout: 15_000 });
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: devWallet(node),
      passphrase: 'dev',
      receiver: (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' }))
        .wallet,
      amount: '1',
    });
    const { block } = await mined(node, op.ophash);
    await page.locator(`figure[data-last-block="${block}"]`).waitFor({ timeout: 10_000 });
    await page
      .getByRole('status')
      .getByText(`Block ${block} is the latest.`)
      .waitFor({ timeout: 10_000 });
    expect(chromium.errors.filter((error) => !error.includes('ERR_CONNECTION_REFUSED'))).toEqual(
      [],
    );
  });
});

describe.skipIf(!hasBrowser)('explorer page of a node that does not produce (Chromium)', () => {
  let node: NodeProcess;
  let chromium: Browser;

  beforeAll(async () => {
    node = await startNode({ args: ['--no-mine'] });
    chromium = await openBrowser();
  });

  afterAll(async () => {
    await chromium?.close();
    await node?.stop();
  });

  it('shows a pending operation as pending, never as block 0', async () => {
    const { page } = chromium;
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: devWallet(node),
      passphrase: 'dev',
      receiver: wallet,
      amount: '2',
    });
    expect(op.block).toBe(0);
    await page.goto(node.url);
    const row = page
      .getByRole('table', { name: 'Pending operations' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `operation ${op.ophash}` }) });
    await row.getByRole('cell', { name: 'pending', exact: true }).waitFor();
    expect(await row.getByRole('link', { name: '0', exact: true }).count()).toBe(0);
    await row.getByRole('link', { name: `operation ${op.ophash}` }).click();
    const details = page.getByRole('region', { name: 'Details' });
    await details.locator('[data-spec="block"]').waitFor();
    expect(await details.getByText('pending', { exact: true }).count()).toBe(1);
    expect(await details.getByRole('link', { name: '0', exact: true }).count()).toBe(0);
    await page.getByRole('status').getByText('Operation is pending.').waitFor();
    expect(chromium.errors).toEqual([]);
  });
});
