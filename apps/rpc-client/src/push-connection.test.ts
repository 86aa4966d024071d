import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer, WebSocket as WsClient } from 'ws';
import { createClient } from './client.js';
import { TransportError } from './errors.js';

const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    server.close();
  }
});

/** Mined operations of a fake node: block and ophash. */
const OPERATIONS = [
  { block: 1, ophash: 'a' },
  { block: 2, ophash: 'b' },
  { block: 2, ophash: 'c' },
  { block: 3, ophash: 'x' },
];

/**
 * A fake node's push side: answers getBlockCount and subscribe (walletOperations from fromBlock,
 * from OPERATIONS); `cutAfter` notifications on the first connection, then it drops the socket.
 */
async function fakeNode(cutAfter: number) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const subscribes: Record<string, unknown>[] = [];
  let connections = 0;
  server.on('connection', (ws: WebSocket) => {
    const first = connections++ === 0;
    ws.on('message', (data) => {
      const request = JSON.parse(data.toString());
      if (request.method === 'getBlockCount') {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: String(request.id), result: 3 }));
        return;
      }
      subscribes.push(request.params);
      const id = `0x${subscribes.length}`;
      // Reply and notifications in one write: the client must know the id before reading on.
      const messages = [{ jsonrpc: '2.0', id: String(request.id), result: id }];
      const from = request.params.fromBlock ?? 0;
      const sent = OPERATIONS.filter((op) => op.block >= from).slice(
        0,
        first ? cutAfter : undefined,
      );
      for (const op of sent) {
        messages.push({
          jsonrpc: '2.0',
          method: 'subscription',
          params: { subscription: id, result: op },
        } as never);
      }
      for (const message of messages) ws.send(JSON.stringify(message));
      if (first) setTimeout(() => ws.terminate(), 50);
    });
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/`, subscribes };
}

describe('client.subscribe', () => {
  it('resumes after a dropped socket from the last height, delivering nothing twice', async () => {
    const node = await fakeNode(2);
    const client = createClient({
      url: node.url,
      WebSocket: WsClient,
      reconnectDelayMs: 20,
    });
    const seen: string[] = [];
    const subscription = client.subscribe(
      'walletOperations',
      { wallet: 'CHx', fromBlock: 1 },
      (op) => seen.push(op.ophash),
    );
    expect(await subscription.ready).toBe('0x1');
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['a', 'b', 'c', 'x']);
    // The second subscribe asked from block 2 (where b was), and b was not delivered again.
    expect(node.subscribes).toEqual([
      { event: 'walletOperations', wallet: 'CHx', fromBlock: 1 },
      { event: 'walletOperations', wallet: 'CHx', fromBlock: 2 },
    ]);
    await subscription.unsubscribe();
    client.close();
  });

  it('reorganizations: live only, subscribed and resumed without fromBlock', async () => {
    const node = await fakeNode(1);
    const client = createClient({ url: node.url, WebSocket: WsClient, reconnectDelayMs: 20 });
    const seen: unknown[] = [];
    const subscription = client.subscribe('reorganizations', {}, (r) => seen.push(r));
    await subscription.ready;
    // The first socket drops after one notification: it subscribes again, from now.
    await expect.poll(() => node.subscribes.length, { timeout: 5000 }).toBe(2);
    expect(node.subscribes).toEqual([{ event: 'reorganizations' }, { event: 'reorganizations' }]);
    expect(seen.length).toBeGreaterThan(0);
    client.close();
  });

  it('gives an async iterator when no callback is given, starting at the head of now (3)', async () => {
    const node = await fakeNode(3);
    const client = createClient({
      url: node.url,
      WebSocket: WsClient,
    });
    const iterator = client
      .subscribe('walletOperations', { wallet: 'CHx' })
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first).toEqual({ value: { block: 3, ophash: 'x' }, done: false });
    await iterator.return?.();
    client.close();
  }, 10_000);

  it('with reconnect: false, ends the subscription when the socket drops', async () => {
    const node = await fakeNode(2);
    const client = createClient({ url: node.url, WebSocket: WsClient, reconnect: false });
    const seen: string[] = [];
    const subscription = client.subscribe(
      'walletOperations',
      { wallet: 'CHx', fromBlock: 1 },
      (op) => seen.push(op.ophash),
    );
    expect(await subscription.ready).toBe('0x1');
    const ended = await subscription.ended.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    expect(ended).toBeInstanceOf(TransportError);
    expect(ended).toMatchObject({ reason: 'NETWORK', message: /closed \(1006/ });
    expect(seen).toEqual(['a', 'b']);
    // It did not come back: one subscribe only.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(node.subscribes).toHaveLength(1);
    client.close();
  });

  it('with reconnect: false, ends it when no socket opens, saying why', async () => {
    const client = createClient({
      url: 'http://127.0.0.1:1/',
      WebSocket: WsClient,
      reconnect: false,
    });
    const subscription = client.subscribe('newBlocks');
    await expect(subscription.ready).rejects.toMatchObject({ reason: 'NETWORK' });
    await expect(subscription.ended).rejects.toMatchObject({
      reason: 'NETWORK',
      message: /ECONNREFUSED/,
    });
    client.close();
  });

  it('ends it on unsubscribe and on close: ended resolves', async () => {
    const node = await fakeNode(4);
    const client = createClient({ url: node.url, WebSocket: WsClient });
    const one = client.subscribe('walletOperations', { wallet: 'CHx', fromBlock: 1 }, () => {});
    const two = client.subscribe('walletOperations', { wallet: 'CHy', fromBlock: 1 }, () => {});
    await Promise.all([one.ready, two.ready]);
    await one.unsubscribe();
    await expect(one.ended).resolves.toBeUndefined();
    client.close();
    await expect(two.ended).resolves.toBeUndefined();
  });

  it('says what to do when there is no WebSocket', () => {
    const client = createClient({ url: 'http://127.0.0.1:1/' });
    const hasGlobal = (globalThis as { WebSocket?: unknown }).WebSocket !== undefined;
    if (hasGlobal) return; // Node 22+: the global one is used
    const subscription = client.subscribe('newBlocks');
    return expect(subscription.ready).rejects.toMatchObject({
      reason: 'NO_WEBSOCKET',
      constructor: TransportError,
    });
  });
});

/** A fake node that keeps its sockets: newBlocks from fromBlock, block 0 and 1; counts connections. */
async function steadyNode() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const state = { connections: 0, open: 0 };
  server.on('connection', (ws: WebSocket) => {
    state.connections++;
    state.open++;
    ws.on('close', () => state.open--);
    let next = 0;
    ws.on('message', (data) => {
      const request = JSON.parse(data.toString());
      const reply = (result: unknown) =>
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: String(request.id), result }));
      if (request.method !== 'subscribe') return reply(true);
      const id = `0x${++next}`;
      reply(id);
      for (const block of [0, 1]) {
        const params = { subscription: id, result: { block } };
        ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params }));
      }
    });
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/`, state };
}

/** A fake node that answers one subscribe with `script`'s notifications, in order. */
async function scriptedNode(script: readonly object[]) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws: WebSocket) => {
    ws.on('message', (data) => {
      const request = JSON.parse(data.toString());
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: String(request.id), result: '0x1' }));
      for (const result of script) {
        const params = { subscription: '0x1', result };
        ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params }));
      }
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('client.subscribe across a reorganisation', () => {
  it('delivers an operation removed and mined again at the same height a second time', async () => {
    // Block 2 replaced by another block 2 holding the same operations (a reorganisation whose
    // fork is below block 2): the node sends them removed, newest first, then mined again.
    const url = await scriptedNode([
      { block: 2, ophash: 'b' },
      { block: 2, ophash: 'c' },
      { block: 2, ophash: 'c', removed: true },
      { block: 2, ophash: 'b', removed: true },
      { block: 2, ophash: 'b' },
      { block: 3, ophash: 'c' },
    ]);
    const client = createClient({ url, WebSocket: WsClient, reconnectDelayMs: 20 });
    const seen: string[] = [];
    const subscription = client.subscribe(
      'walletOperations',
      { wallet: 'CHx', fromBlock: 1 },
      (op) => seen.push(`${op.ophash}@${op.block}${op.removed === true ? '-' : '+'}`),
    );
    await subscription.ready;
    await expect
      .poll(() => seen, { timeout: 5000 })
      .toEqual(['b@2+', 'c@2+', 'c@2-', 'b@2-', 'b@2+', 'c@3+']);
    client.close();
  });
});

describe('client.subscribe after the last subscription ended', () => {
  it('lets the socket go, and a later subscription opens a new one on the same client', async () => {
    const node = await steadyNode();
    const client = createClient({ url: node.url, WebSocket: WsClient });

    for await (const block of client.subscribe('newBlocks', { fromBlock: 0 })) {
      expect(block.block).toBe(0);
      break; // unsubscribes: the last one, so the socket closes
    }
    await expect.poll(() => node.state.open).toBe(0);

    const seen: number[] = [];
    for await (const block of client.subscribe('newBlocks', { fromBlock: 0 })) {
      seen.push(block.block);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([0, 1]);
    expect(node.state.connections).toBe(2);
    client.close();
  });
});

describe('client.subscribe from a page', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('names --rpc-cors when the socket to a node of another origin never opens', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve)); // nothing listens there now
    vi.stubGlobal('location', { origin: 'http://127.0.0.1:5173' });
    const client = createClient({
      url: `http://127.0.0.1:${port}/`,
      WebSocket: WsClient,
      reconnect: false,
    });

    const subscription = client.subscribe('newBlocks', { fromBlock: 0 });

    await expect(subscription.ready).rejects.toThrow(
      `(from a page of http://127.0.0.1:5173, a browser reports a node that is not running at http://127.0.0.1:${port} and one that does not allow this origin the same way: start the node with --rpc-cors http://127.0.0.1:5173)`,
    );
    client.close();
  });
});
