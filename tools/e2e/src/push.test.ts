import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  devWallet,
  mined,
  newFundedWallet,
  type OperationObject,
  waitFor,
} from './harness/chain';
import {
  CHAIN_NODE_BIN,
  call,
  type NodeProcess,
  rpc,
  runChainNode,
  startNode,
} from './harness/node-process';
import { openPushSocket, type PushSocket, refusedUpgrade } from './harness/push-socket';

// Push over WebSocket (issue 16), through the real binary: blocks are made only while operations
// are pending, so each block a test sees is one it caused.
const ORIGIN = 'http://explorer.example';
let node: NodeProcess;
let dev: string;
/** A wallet that receives the transfers that only make blocks. */
let sink: string;
const sockets: PushSocket[] = [];

async function socket(headers: Record<string, string> = {}): Promise<PushSocket> {
  const s = await openPushSocket(node.url, headers);
  sockets.push(s);
  return s;
}

/** A transfer from the dev wallet, waited for until mined. */
async function transfer(receiver: string, amount = '1'): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, 'sendTo', {
    sender: dev,
    passphrase: 'dev',
    receiver,
    amount,
  });
  return mined(node, op.ophash);
}

async function blockInfos(from: number, to: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let block = from; block <= to; block++) {
    out.push(await call(node.url, 'getBlockInfo', { block }));
  }
  return out;
}

beforeAll(async () => {
  node = await startNode({
    args: ['--block-time', '100', '--rpc-cors', ORIGIN, '--rpc-ws-max-buffered-bytes', '65536'],
  });
  dev = devWallet(node);
  sink = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' })).wallet;
});

afterAll(async () => {
  for (const s of sockets) s.ws.terminate();
  await node?.stop();
});

describe('newBlocks', () => {
  it('replays from block 0 exactly what getBlockInfo returns, then goes live with no gap', async () => {
    const other = await newFundedWallet(node, '5');
    await transfer(other);
    const s = await socket();
    const id = await s.subscribe({ event: 'newBlocks', fromBlock: 0 });
    const head = (await call<number>(node.url, 'getBlockCount')) - 1;
    const replayed = await s.waitNotifications(id, head + 1);
    const live = await transfer(other);
    const all = await s.waitNotifications(id, live.block + 1);
    expect(all).toEqual(await blockInfos(0, live.block));
    expect(all.map((b) => b.block)).toEqual([...Array(live.block + 1).keys()]);
    expect(replayed.length).toBeGreaterThan(2);
  });

  it('50 concurrent subscribers all see the same block', async () => {
    const subscribers = await Promise.all(Array.from({ length: 50 }, () => socket()));
    const ids = await Promise.all(subscribers.map((s) => s.subscribe({ event: 'newBlocks' })));
    const op = await transfer(sink);
    const seen = await Promise.all(
      subscribers.map(async (s, i) => (await s.waitNotifications(ids[i]!, 1))[0]),
    );
    const expected = await call(node.url, 'getBlockInfo', { block: op.block });
    for (const block of seen) expect(block).toEqual(expected);
    await Promise.all(subscribers.map((s) => s.close()));
  });

  it('unsubscribe stops delivery', async () => {
    const s = await socket();
    const first = await s.subscribe({ event: 'newBlocks' });
    expect((await s.call('unsubscribe', { subscription: first })).result).toBe(true);
    const second = await s.subscribe({ event: 'newBlocks' });
    await transfer(sink);
    // Both would be sent in the same turn: once the second has its block, the first would have too.
    await s.waitNotifications(second, 1);
    expect(s.notifications(first)).toEqual([]);
    expect((await s.call('unsubscribe', { subscription: first })).result).toBe(false);
  });
});

describe('pendingOperations', () => {
  it('sends each operation accepted into the pool', async () => {
    const s = await socket();
    const id = await s.subscribe({ event: 'pendingOperations' });
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: sink,
      amount: '1',
    });
    const [pending] = await s.waitNotifications(id, 1);
    expect(pending).toMatchObject({ ophash: op.ophash, signer_account: dev, amount: op.amount });
    await mined(node, op.ophash);
  });
});

describe('walletOperations', () => {
  it('replays the history of a wallet from block 0 as getBlockOperations has it, then live', async () => {
    const wallet = await newFundedWallet(node, '3');
    await transfer(wallet, '2');
    const s = await socket();
    const id = await s.subscribe({ event: 'walletOperations', wallet, fromBlock: 0 });
    const live = await transfer(wallet, '4');
    const got = await s.waitNotifications(id, 3);
    const expected: unknown[] = [];
    for (let block = 1; block <= live.block; block++) {
      const ops = await call<OperationObject[]>(node.url, 'getBlockOperations', { block });
      expected.push(
        ...ops.filter(
          (op) =>
            op.signer_account === wallet ||
            op.receivers.some((r) => r.account === wallet) ||
            op.senders.some((r) => r.account === wallet),
        ),
      );
    }
    expect(expected).toHaveLength(3);
    // `maturation` counts blocks on top as of the moment each was sent: the rest is the same.
    const withoutMaturation = (ops: unknown[]) =>
      ops.map((op) => ({ ...(op as OperationObject), maturation: undefined }));
    expect(withoutMaturation(got)).toEqual(withoutMaturation(expected));
    expect(got[2]!.maturation).toBe(0);
  });
});

describe('tokenTransfers', () => {
  it('sends the mined operations of that token only, from its creation', async () => {
    const owner = await newFundedWallet(node, '10');
    await activate(node, owner);
    const create = (symbol: string) =>
      call<OperationObject & { token: string }>(node.url, 'createToken', {
        wallet: owner,
        passphrase: 'pw',
        function: false,
        name: `Token ${symbol}`,
        symbol,
        summary: 'push test',
        totalAmount: '1000',
        decimal: 0,
      });
    const created = await create('PSH');
    const creation = await mined(node, created.ophash);
    const other = await create('OTH');
    await mined(node, other.ophash);
    const s = await socket();
    const id = await s.subscribe({
      event: 'tokenTransfers',
      token: created.token,
      fromBlock: creation.block,
    });
    const send = (token: string) =>
      call<OperationObject>(node.url, 'sendToken', {
        sender: owner,
        passphrase: 'pw',
        receiver: dev,
        amount: '5',
        token,
      });
    await mined(node, (await send(other.token)).ophash);
    const sent = await mined(node, (await send(created.token)).ophash);
    const got = await s.waitNotifications(id, 2);
    expect(got.map((op) => op.ophash)).toEqual([creation.ophash, sent.ophash]);
    expect(got[1]).toEqual(sent);
  });
});

describe('bad input and access', () => {
  it('names the parameter at fault', async () => {
    const s = await socket();
    const unknown = await s.call('subscribe', { event: 'newBlock' });
    expect(unknown.error).toMatchObject({ code: -32602, data: { param: 'event' } });
    const noWallet = await s.call('subscribe', { event: 'walletOperations' });
    expect(noWallet.error).toMatchObject({ code: -32602, data: { param: 'wallet' } });
    const noToken = await s.call('subscribe', { event: 'tokenTransfers' });
    expect(noToken.error).toMatchObject({ code: -32602, data: { param: 'token' } });
    const badWallet = await s.call('subscribe', { event: 'walletOperations', wallet: 'CH00' });
    expect(badWallet.error).toMatchObject({ data: { param: 'wallet' } });
    const overHttp = await rpc(node.url, 'subscribe', { event: 'newBlocks' });
    expect(overHttp.error).toMatchObject({ code: -32021, data: { reason: 'WEBSOCKET_REQUIRED' } });
    // Every other method works on the socket too.
    expect((await s.call('getBlockCount')).result).toBe(await call(node.url, 'getBlockCount'));
  });

  it('refuses an upgrade from a foreign Origin with 403, and takes the allowed one', async () => {
    expect(await refusedUpgrade(node.url, { origin: 'http://evil.example' })).toBe(403);
    const allowed = await socket({ origin: ORIGIN });
    expect((await allowed.call('getBlockCount')).result).toBeGreaterThan(0);
  });
});

describe('a client that does not read', () => {
  it('is cut off (close 1008, logged) while the others go on', async () => {
    const slow = await socket();
    const other = await socket();
    const id = await other.subscribe({ event: 'newBlocks' });
    await slow.subscribe({ event: 'newBlocks' });
    (slow.ws as unknown as { _socket: Socket })._socket.pause();
    const batch = JSON.stringify(
      Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        method: 'getBlockInfo',
        params: { block: 0 },
        id: i,
      })),
    );
    // Replies it never reads: the kernel's buffers fill, then the node's queue passes 64 KiB.
    for (let i = 0; i < 400 && !/too slow/.test(node.stdout()); i++) {
      slow.ws.send(batch);
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor('the slow client to be cut off', async () =>
      /too slow/.test(node.stdout() + node.stderr()),
    );
    const line = (node.stdout() + node.stderr()).split('\n').find((l) => /too slow/.test(l))!;
    expect(line).toMatch(/1008/);
    const op = await transfer(sink);
    const [block] = await other.waitNotifications(id, 1);
    expect(block!.block).toBe(op.block);
    const closed = new Promise<number>((resolve) => slow.ws.once('close', resolve));
    (slow.ws as unknown as { _socket: Socket })._socket.resume();
    expect([1008, 1006]).toContain(await closed);
  });
});

describe('chain-node watch', () => {
  it('prints one JSON line per notification: the history from --from, then live', async () => {
    const head = (await call<number>(node.url, 'getBlockCount')) - 1;
    const watch = spawn(
      process.execPath,
      [
        CHAIN_NODE_BIN,
        'watch',
        'newBlocks',
        '--from',
        String(head - 1),
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
      await waitFor('the history lines', async () => out.split('\n').length > 2);
      const live = await transfer(sink);
      await waitFor('the live line', async () => out.includes(`"block":${live.block},`));
      const lines = out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { block: number });
      expect(lines.map((block) => block.block)).toEqual([head - 1, head, live.block]);
      expect(lines[2]).toEqual(await call(node.url, 'getBlockInfo', { block: live.block }));
    } finally {
      watch.kill('SIGINT');
    }
  });

  it('exits 3 when the node goes away (no reconnect), 1 when the node refuses, 3 with no node', async () => {
    const own = await startNode({ args: ['--block-time', '100'] });
    const watch = spawn(
      process.execPath,
      [CHAIN_NODE_BIN, 'watch', 'newBlocks', '--from', '0', '--json', '--rpc-url', own.url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    watch.stdout.on('data', (chunk) => {
      out += chunk;
    });
    watch.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const exited = new Promise<number | null>((resolve) => watch.once('exit', resolve));
    try {
      await waitFor('block 0', async () => out.includes('"block":0,'));
    } finally {
      await own.stop('SIGKILL');
    }
    expect(await exited).toBe(3);
    expect(err).toMatch(/the node closed the connection/);

    const refused = await runChainNode([
      'watch',
      'walletOperations',
      'CHnotAWallet',
      '--rpc-url',
      node.url,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error -?\d+ [A-Z_]+: /);
    const gone = await runChainNode(['watch', 'newBlocks', '--rpc-url', own.url]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/cannot watch .*ECONNREFUSED/);
  });

  it('refuses a missing wallet as a usage error and an unknown event', async () => {
    const noWallet = await runChainNode(['watch', 'walletOperations', '--rpc-url', node.url]);
    expect(noWallet.code).toBe(2);
    expect(noWallet.stderr).toMatch(/needs a wallet/);
    const unknown = await runChainNode(['watch', 'newBlock', '--rpc-url', node.url]);
    expect(unknown.code).toBe(2);
  });
});
