import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activate, devWallet, mined, type OperationObject, waitFor } from './harness/chain';
import { metricsUrl, sample, scrape } from './harness/metrics';
import { CHAIN_NODE_BIN, call, type NodeProcess, startNode } from './harness/node-process';
import { openPushSocket, type PushSocket } from './harness/push-socket';

// Issue 29, item 1, through the real binary: push survives blocks holding every operation type
// (transfer, activation, createToken, sendToken, adminToken, each nodeStep, blockchainStart,
// nodeCancel), live and replayed, and a newBlocks client on another connection misses no block
// beside the walletOperations / tokenTransfers subscriptions. A block time of 0 makes a block per
// submission.

let node: NodeProcess;
let dev: string;
const w: Record<string, string> = {};
const sockets: PushSocket[] = [];
let token: string;
/** The heights the operations below were mined at, from the first to the last. */
let first: number;
let last: number;

async function socket(): Promise<PushSocket> {
  const s = await openPushSocket(node.url);
  sockets.push(s);
  return s;
}

/** Calls a method that submits one operation; waits until it is mined. */
async function onChain(method: string, params: Record<string, unknown>): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, method, params);
  return mined(node, op.ophash);
}

/** What walletOperations hears of `wallet`: signer, sender or receiver (a field may be absent). */
function touches(op: OperationObject, wallet: string): boolean {
  const parties = [...(op.senders ?? []), ...(op.receivers ?? [])];
  return op.signer_account === wallet || parties.some((party) => party.account === wallet);
}

async function minedBetween(from: number, to: number): Promise<OperationObject[]> {
  const out: OperationObject[] = [];
  for (let block = from; block <= to; block++) {
    out.push(...(await call<OperationObject[]>(node.url, 'getBlockOperations', { block })));
  }
  return out;
}

/** `maturation` counts the blocks on top as of the moment each was sent: the rest is the same. */
const settled = (ops: unknown[]) =>
  ops.map((op) => ({ ...(op as OperationObject), maturation: undefined }));

let live: PushSocket;
let blocksClient: PushSocket;
const liveIds: Record<string, string> = {};

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '0', '--metrics', '--metrics-port', '0'] });
  dev = devWallet(node);
  for (const label of ['top', 'topMiner', 'm1', 'm1Miner', 'b1', 'b1Miner', 'mine', 'quiet']) {
    w[label] = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })).wallet;
  }
  // Subscribed before any of it is mined: the live side sees every block below.
  live = await socket();
  blocksClient = await socket();
  liveIds.top = await live.subscribe({ event: 'walletOperations', wallet: w.top });
  liveIds.m1 = await live.subscribe({ event: 'walletOperations', wallet: w.m1 });
  liveIds.quiet = await live.subscribe({ event: 'walletOperations', wallet: w.quiet });
  liveIds.blocks = await blocksClient.subscribe({ event: 'newBlocks' });
  first = await call<number>(node.url, 'getBlockCount');

  const fund = (wallet: string, amount: string) =>
    onChain('sendTo', { sender: dev, passphrase: 'dev', receiver: wallet, amount });
  // The mine wallet signs blocks once blockchainStart makes it a producer: active beforehand.
  const signers = ['top', 'm1', 'b1', 'mine'];
  for (const label of signers) await fund(w[label]!, label === 'top' ? '1000' : '100');
  for (const label of signers) await activate(node, w[label]!);

  const created = await onChain('createToken', {
    wallet: w.top,
    passphrase: 'pw',
    function: true,
    name: 'Every Op',
    symbol: 'EOP',
    summary: 'push across every operation type',
    totalAmount: '1000',
    decimal: 0,
  });
  token = (created as OperationObject & { token: string }).token;
  liveIds.token = await live.subscribe({ event: 'tokenTransfers', token });
  await onChain('sendToken', {
    sender: w.top,
    passphrase: 'pw',
    receiver: w.m1,
    amount: '5',
    token,
  });
  await onChain('adminToken', {
    sender: w.top,
    passphrase: 'pw',
    token,
    method: 'transferEnabled',
    select: true,
  });

  const joined = await onChain('nodeStep1', {
    wallet: w.top,
    passphrase: 'pw',
    miner: w.topMiner,
    amount: '100',
    penalty: 10,
  });
  const code = /node code ([0-9a-f]{16})$/.exec(joined.optxt)![1]!;
  await onChain('nodeStep2', { code, wallet: w.top, passphrase: 'pw' });
  await onChain('nodeStep3_1', {
    code,
    wallet: w.m1,
    amount: '30',
    passphrase: 'pw',
    miner: w.m1Miner,
    confirmer: w.top,
  });
  const decide = { select: true, code, confirmer: w.top, passphrase: 'pw', target: w.m1 };
  await onChain('nodeStep3_2', decide);
  await onChain('nodeStep4_1', { code, wallet: w.m1, passphrase: 'pw', confirmer: w.top });
  await onChain('nodeStep4_2', decide);
  await onChain('nodeStep5_1', {
    code,
    wallet: w.b1,
    amount: '7',
    passphrase: 'pw',
    miner: w.b1Miner,
    main: w.top,
    confirmer: w.m1,
  });
  await onChain('nodeStep5_2', {
    select: true,
    code,
    main: w.top,
    confirmer: w.m1,
    passphrase: 'pw',
    target: w.b1,
  });
  await onChain('blockchainStart', {
    code,
    wallet: w.top,
    passphrase: 'pw',
    mine: w.mine,
    minepass: 'pw',
    share: w.top,
    nodes: '',
  });
  last = (await onChain('nodeCancel', { code, wallet: w.b1, passphrase: 'pw' })).block;
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.ws.terminate();
  await node?.stop();
});

describe('push across every operation type', () => {
  it('the blocks hold every operation type', async () => {
    const kinds = new Set(
      (await minedBetween(first, last)).map((op) => `${op.optype}/${op.subtype}`),
    );
    // createToken leaves `subtype` out.
    for (const kind of ['2/0', '5/0', '6/undefined', '7/0', '7/1', '8/0', '9/0']) {
      expect(kinds, kind).toContain(kind);
    }
    for (const kind of ['14/0', '15/0', '16/0', '17/0', '18/0', '19/0', '19/1', '19/2']) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it('live: walletOperations hears exactly its operations, a wallet with none hears nothing', async () => {
    const all = await minedBetween(first, last);
    for (const label of ['top', 'm1']) {
      const expected = all.filter((op) => touches(op, w[label]!));
      expect(expected.length).toBeGreaterThan(5);
      const got = await live.waitNotifications(liveIds[label]!, expected.length);
      expect(settled(got)).toEqual(settled(expected));
    }
    expect(all.some((op) => op.optype === 6 && touches(op, w.top!))).toBe(true);
    expect(live.notifications(liveIds.quiet!)).toEqual([]);
  });

  it('live: tokenTransfers hears the token operations mined after it subscribed', async () => {
    const got = await live.waitNotifications(liveIds.token!, 2);
    expect(got.map((op) => [op.optype, op.subtype])).toEqual([
      [7, 0],
      [7, 1],
    ]);
  });

  it('a newBlocks client beside them has every block, in order', async () => {
    const got = await blocksClient.waitNotifications(liveIds.blocks!, last - first + 1);
    expect(got.map((b) => b.block)).toEqual(
      Array.from({ length: last - first + 1 }, (_, i) => first + i),
    );
  });

  it('a replay from block 0 crosses every block, then goes live', async () => {
    const s = await socket();
    const all = await minedBetween(1, last);
    for (const label of ['top', 'm1', 'b1']) {
      const id = await s.subscribe({ event: 'walletOperations', wallet: w[label], fromBlock: 0 });
      const expected = all.filter((op) => touches(op, w[label]!));
      const got = await s.waitNotifications(id, expected.length);
      expect(settled(got)).toEqual(settled(expected));
    }
    const tokenId = await s.subscribe({ event: 'tokenTransfers', token, fromBlock: 0 });
    const tokenOps = all.filter((op) => op.optype === 6 || op.optype === 7);
    expect(settled(await s.waitNotifications(tokenId, 3))).toEqual(settled(tokenOps));
    const blocksId = await s.subscribe({ event: 'newBlocks', fromBlock: 0 });
    expect((await s.waitNotifications(blocksId, last + 1)).length).toBe(last + 1);

    // Then live: the next operation of top's comes on the replayed subscription too.
    const topId = await s.subscribe({ event: 'walletOperations', wallet: w.top, fromBlock: last });
    const next = await onChain('sendTo', {
      sender: w.top,
      passphrase: 'pw',
      receiver: w.quiet,
      amount: '1',
    });
    await waitFor('the live operation', async () =>
      s.notifications(topId).some((op) => op.ophash === next.ophash),
    );
  });

  it("the issue's reproduction: `chain-node watch walletOperations W --from 0` prints it all", async () => {
    // W is a wallet that never signed a createToken: the filter reads every createToken's fields.
    const expected = (await minedBetween(1, last)).filter((op) => touches(op, w.m1!));
    const watch = spawn(
      process.execPath,
      [
        CHAIN_NODE_BIN,
        'watch',
        'walletOperations',
        w.m1!,
        '--from',
        '0',
        '--json',
        '--rpc-url',
        node.url,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    watch.stdout.on('data', (chunk) => {
      out += chunk;
    });
    try {
      await waitFor('every operation of the wallet', async () =>
        out.trim().split('\n').length >= expected.length ? true : undefined,
      );
      const lines = out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as OperationObject);
      expect(lines.map((op) => op.ophash)).toEqual(expected.map((op) => op.ophash));
    } finally {
      watch.kill('SIGINT');
    }
  });

  it('no listener failed: chain_listener_errors_total stays 0 for every kind', async () => {
    const text = await scrape(metricsUrl(node)!);
    for (const listener of ['block', 'pending', 'observer', 'push']) {
      expect(sample(text, 'chain_listener_errors_total', { listener }), listener).toBe(0);
    }
    expect(node.stdout() + node.stderr()).not.toMatch(/listener failed|push replay failed/);
  });
});
