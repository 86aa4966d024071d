import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { createClient } from '@chain/rpc-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { call, makeDatadir, type NodeProcess, rpc, startNode } from './harness/node-process';

// Reads by address on the real binary (issue 41): a wallet's operations newest first and from a
// block on, paged by cursor to the first one; a token's operations and a wallet's tokens; a block
// by hash; all kept across a kill -9.

interface Page {
  operations: Array<OperationObject & { confirmations: number }>;
  cursor: string | null;
  indexFrom: number;
}

const ARGS = ['--block-time', '0'];
let datadir: string;
let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  datadir = await makeDatadir();
  node = await startNode({ datadir, args: ARGS });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
  await rm(datadir, { recursive: true, force: true });
});

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

async function deposit(receiver: string, amount: string): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, 'sendTo', {
    sender: dev,
    passphrase: 'dev',
    receiver,
    amount,
  });
  return mined(node, op.ophash);
}

/** Every page of a history, following cursors. */
async function everyPage(
  method: string,
  params: Record<string, unknown>,
): Promise<Page['operations']> {
  const all: Page['operations'] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await call<Page>(node.url, method, {
      ...params,
      ...(cursor === null ? {} : { cursor }),
    });
    all.push(...page.operations);
    cursor = page.cursor;
  } while (cursor !== null);
  return all;
}

describe('reads by address', () => {
  it("pages a wallet's deposits newest first to its first one, and from a block on", async () => {
    const wallet = stranger();
    const deposits: OperationObject[] = [];
    for (let i = 1; i <= 7; i++) deposits.push(await deposit(wallet, String(i)));
    const newest = await everyPage('getWalletOperations', { wallet, max: 3 });
    expect(newest.map((op) => op.ophash)).toEqual(deposits.map((op) => op.ophash).reverse());
    const head = await call<number>(node.url, 'getBlockCount');
    for (const op of newest) expect(op.confirmations).toBe(head - op.block);
    expect(newest.at(-1)!.amount).toBe((10n ** 18n).toString()); // the first deposit: 1 coin

    const since = await everyPage('getWalletOperations', {
      wallet,
      max: 2,
      fromBlock: deposits[4]!.block,
    });
    expect(since.map((op) => op.ophash)).toEqual(deposits.slice(4).map((op) => op.ophash));
    const first = await call<Page>(node.url, 'getWalletOperations', { wallet });
    expect(first.indexFrom).toBe(0);
    expect(first.cursor).toBeNull();
  });

  it('says which param is wrong', async () => {
    const bad = await rpc(node.url, 'getWalletOperations', { wallet: dev, cursor: 'soon' });
    expect(bad.error).toMatchObject({ data: { param: 'cursor', reason: 'BAD_CURSOR' } });
    const tooMany = await rpc(node.url, 'getWalletOperations', { wallet: dev, max: 1001 });
    expect(tooMany.error?.code).toBe(-32602);
    expect(tooMany.error?.message).toContain('max');
    const noBlock = await rpc(node.url, 'getBlockByHash', { hash: 'cd'.repeat(32) });
    expect(noBlock.error).toMatchObject({ data: { param: 'hash', reason: 'BLOCK_NOT_FOUND' } });
  });

  it("lists a token's operations and a wallet's tokens, through the SDK", async () => {
    const sdk = createClient({ url: node.url });
    const alice = stranger();
    const created = await sdk.token.createToken({
      wallet: dev,
      passphrase: 'dev',
      function: false,
      name: 'History',
      symbol: 'HIS',
      summary: 'a token with a history',
      totalAmount: '1000',
      decimal: 2,
    });
    await mined(node, created.ophash);
    const sent = await sdk.token.sendToken({
      sender: dev,
      passphrase: 'dev',
      receiver: alice,
      amount: '2.5',
      token: created.token,
    });
    await mined(node, sent.ophash);
    const ops = await sdk.token.getTokenOperations({ token: created.token });
    expect(ops.operations.map((op) => op.optype)).toEqual([7, 6]);
    const tokens = await sdk.wallet.getWalletTokens({ wallet: alice });
    expect(tokens.tokens).toEqual([
      {
        token: created.token,
        symbol: "'HIS'",
        decimal: 2,
        balance: '250',
        volumeLock: '0',
        volumeTimeLock: '0',
        transfer: true,
      },
    ]);
    const block = await sdk.block.getBlockInfo({ block: ops.operations[0]!.block });
    expect(await sdk.block.getBlockByHash({ hash: block.hash })).toEqual(block);
  });

  it('keeps the history across a kill -9', async () => {
    const wallet = stranger();
    const deposits = [await deposit(wallet, '1'), await deposit(wallet, '2')];
    await node.stop('SIGKILL');
    node = await startNode({ datadir, args: ARGS });
    const after = await everyPage('getWalletOperations', { wallet, max: 1 });
    expect(after.map((op) => op.ophash)).toEqual(deposits.map((op) => op.ophash).reverse());
  });
});

describe('a withdrawal whose reply was lost', () => {
  it('is found by its n_operation, pending or mined, and the pending n_operation is told', async () => {
    const sdk = createClient({ url: node.url });
    const before = await sdk.wallet.getWalletInfo({ wallet: dev });
    expect(before.n_operation_pending).toBe(before.n_operation);
    const op = await sdk.operations.sendTo({
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '5',
    });
    const [found] = await sdk.operations.findOperationByNOperation({
      wallet: dev,
      n_operation: op.n_operation,
    });
    expect(found?.n_operation).toBe(op.n_operation);
    // A transfer: the union by optype has `amount` only once narrowed.
    expect(found?.optype).toBe(2);
    expect(found?.optype === 2 ? found.amount : undefined).toBe((5n * 10n ** 18n).toString());
    await mined(node, op.ophash);
    const after = await sdk.wallet.getWalletInfo({ wallet: dev });
    expect(after.n_operation_pending).toBe(after.n_operation);
    const none = await sdk.operations.findOperationByNOperation({
      wallet: dev,
      n_operation: after.n_operation + 1,
    });
    expect(none).toEqual([]);
  });
});

describe('confirmations on a quiet chain', () => {
  it('counts on with --empty-block-time, and no block comes without it', async () => {
    const quiet = await startNode({ args: ['--block-time', '0', '--empty-block-time', '300'] });
    try {
      const wallet = stranger();
      const op = await call<OperationObject>(quiet.url, 'sendTo', {
        sender: devWallet(quiet),
        passphrase: 'dev',
        receiver: wallet,
        amount: '1',
      });
      const onChain = await waitForConfirmations(quiet, wallet, 3);
      expect(onChain.ophash.slice(8)).toBe(op.ophash.slice(8));
    } finally {
      await quiet.stop();
    }
    // The first describe's node runs without the flag: its head stays where it is.
    const count = await call<number>(node.url, 'getBlockCount');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await call<number>(node.url, 'getBlockCount')).toBe(count);
  });
});

async function waitForConfirmations(
  on: NodeProcess,
  wallet: string,
  confirmations: number,
): Promise<Page['operations'][number]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await call<Page>(on.url, 'getWalletOperations', { wallet });
    const op = page.operations[0];
    if (op !== undefined && op.confirmations >= confirmations) return op;
    if (Date.now() > deadline) throw new Error(`no ${confirmations} confirmations in 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
