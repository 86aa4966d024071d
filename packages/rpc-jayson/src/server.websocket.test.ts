import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Handlers, Logger, PushSubscription } from './options.js';
import { startTestServer, type TestServer } from './test-server.js';
import { requirePush } from './ws-front.js';

const running: TestServer[] = [];
const sockets: WebSocket[] = [];
async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  running.push(t);
  return t;
}
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

/** A WebSocket client that keeps every message it receives, in order. */
interface Client {
  ws: WebSocket;
  messages: unknown[];
  /** Sends a call and resolves with its reply (matched by id). */
  call(method: string, params?: unknown): Promise<Record<string, unknown>>;
  /** Resolves once `count` messages have arrived. */
  received(count: number): Promise<unknown[]>;
}

function connect(port: number, headers: Record<string, string> = {}): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { headers });
  sockets.push(ws);
  const messages: unknown[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const wake of waiters.splice(0)) wake();
  });
  let nextId = 1;
  const client: Client = {
    ws,
    messages,
    async call(method, params) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
      for (;;) {
        // The server answers every id as a string (replies.ts).
        const reply = messages.find((m) => (m as { id?: unknown }).id === String(id));
        if (reply !== undefined) return reply as Record<string, unknown>;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async received(count) {
      while (messages.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return messages.slice(0, count);
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** The HTTP status of a refused upgrade. */
function refusedStatus(port: number, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { headers });
    sockets.push(ws);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => undefined);
  });
}

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

/** A subscribe handler that sends `count` notifications at once (before its reply). */
function countingSubscribe(stops: string[], subscriptions: PushSubscription[]): Partial<Handlers> {
  return {
    subscribe: (params, context) => {
      const subscription: PushSubscription = requirePush(context, 'subscribe').open(() =>
        stops.push(subscription.id),
      );
      subscriptions.push(subscription);
      const count = params.fromBlock ?? 0;
      for (let i = 0; i < count; i++) subscription.send({ n: i });
      return subscription.id;
    },
  };
}

describe('JSON-RPC over a WebSocket upgrade', () => {
  it('answers every method as over HTTP, single calls and batches', async () => {
    const t = await serve({ handlers: { getBlockCount: () => 7 } });
    const client = await connect(t.port);
    expect(await client.call('getBlockCount')).toEqual({ jsonrpc: '2.0', result: 7, id: '1' });
    const unknown = await client.call('getblockcount');
    expect((unknown.error as { code: number }).code).toBe(-32601);
    client.ws.send('[{"jsonrpc":"2.0","method":"getBlockCount","id":"a"}]');
    client.ws.send('not json');
    const [, , batch, parse] = await client.received(4);
    expect(batch).toEqual([{ jsonrpc: '2.0', result: 7, id: 'a' }]);
    expect((parse as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('sends notifications after the reply that opened the subscription, and none after unsubscribe', async () => {
    const stops: string[] = [];
    const subscriptions: PushSubscription[] = [];
    const t = await serve({ handlers: countingSubscribe(stops, subscriptions) });
    const client = await connect(t.port);
    const reply = await client.call('subscribe', { event: 'newBlocks', fromBlock: 2 });
    const id = reply.result as string;
    expect(typeof id).toBe('string');
    const [first, second, third] = await client.received(3);
    expect(first).toEqual(reply);
    expect(second).toEqual({
      jsonrpc: '2.0',
      method: 'subscription',
      params: { subscription: id, result: { n: 0 } },
    });
    expect(third).toMatchObject({ params: { result: { n: 1 } } });
    expect((await client.call('unsubscribe', { subscription: id })).result).toBe(true);
    expect(stops).toEqual([id]);
    expect(subscriptions[0]!.active).toBe(false);
    subscriptions[0]!.send({ n: 2 });
    expect((await client.call('unsubscribe', { subscription: id })).result).toBe(false);
    expect(client.messages).toHaveLength(5); // nothing between the two unsubscribe replies
  });

  it('ends the subscriptions of a closed connection', async () => {
    const stops: string[] = [];
    const t = await serve({ handlers: countingSubscribe(stops, []) });
    const client = await connect(t.port);
    await client.call('subscribe', { event: 'newBlocks' });
    await client.call('subscribe', { event: 'pendingOperations' });
    client.ws.close();
    await closed(client.ws);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stops).toEqual(['0x1', '0x2']);
  });

  it('answers subscribe and unsubscribe over HTTP with WEBSOCKET_REQUIRED', async () => {
    const t = await serve({ handlers: countingSubscribe([], []) });
    for (const [method, params] of [
      ['subscribe', { event: 'newBlocks' }],
      ['unsubscribe', { subscription: '0x1' }],
    ] as const) {
      const reply = await t.call(method, params);
      expect(reply.error).toMatchObject({ code: -32021, data: { reason: 'WEBSOCKET_REQUIRED' } });
    }
  });

  it('names the bad param: an unknown event is `event`', async () => {
    const t = await serve({ handlers: countingSubscribe([], []) });
    const client = await connect(t.port);
    const reply = await client.call('subscribe', { event: 'newBlock' });
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'event' } });
  });

  it('refuses past the subscriptions of a connection with SUBSCRIPTION_LIMIT', async () => {
    const t = await serve({ handlers: countingSubscribe([], []), wsMaxSubscriptions: 2 });
    const client = await connect(t.port);
    await client.call('subscribe', { event: 'newBlocks' });
    await client.call('subscribe', { event: 'newBlocks' });
    const third = await client.call('subscribe', { event: 'newBlocks' });
    expect(third.error).toMatchObject({ code: -32020, data: { reason: 'SUBSCRIPTION_LIMIT' } });
  });
});

describe('the access rules of a WebSocket upgrade', () => {
  it('refuses a foreign Origin with 403 and accepts an allowed one or none', async () => {
    const t = await serve({ corsOrigins: ['http://app.example'] });
    expect(await refusedStatus(t.port, { origin: 'http://evil.example' })).toBe(403);
    await connect(t.port, { origin: 'http://app.example' });
    await connect(t.port);
  });

  it('refuses a Host not allowed with 403', async () => {
    const t = await serve();
    expect(await refusedStatus(t.port, { host: 'attacker.example' })).toBe(403);
  });

  it('requires the credentials when the server does', async () => {
    const auth = { user: 'u', password: 'p' };
    const t = await serve({ auth, handlers: { getBlockCount: () => 1 } });
    expect(await refusedStatus(t.port)).toBe(401);
    const basic = `Basic ${Buffer.from('u:p').toString('base64')}`;
    const client = await connect(t.port, { authorization: basic });
    expect((await client.call('getBlockCount')).result).toBe(1);
  });

  it('limits connections per IP and in total with 503, and frees the place on close', async () => {
    const t = await serve({ wsMaxConnectionsPerIp: 2 });
    const first = await connect(t.port);
    await connect(t.port);
    expect(await refusedStatus(t.port)).toBe(503);
    first.ws.close();
    await closed(first.ws);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await connect(t.port);
    const total = await serve({ wsMaxConnections: 1 });
    await connect(total.port);
    expect(await refusedStatus(total.port)).toBe(503);
  });

  it('closes a connection that sends a message over the size limit (1009)', async () => {
    const t = await serve({ wsMaxMessageBytes: 1024 });
    const client = await connect(t.port);
    client.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: ['a'.repeat(2000)] }));
    expect(await closed(client.ws)).toBe(1009);
  });
});

describe('a client that does not read', () => {
  it('is cut off (1008, logged) once its queued data passes the limit; others go on', async () => {
    const warnings: object[] = [];
    const log: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (obj) => warnings.push(obj),
      error: () => undefined,
    };
    const big = 'x'.repeat(64 * 1024);
    const t = await serve({
      handlers: {
        getBlockCount: () => 1,
        getNodeVersion: () => big,
      } as unknown as Partial<Handlers>,
      wsMaxBufferedBytes: 256 * 1024,
      log,
    });
    const slow = await connect(t.port);
    const other = await connect(t.port);
    // Stop reading: replies pile up in the kernel's buffers, then in the server's queue.
    (slow.ws as unknown as { _socket: Socket })._socket.pause();
    const call = JSON.stringify({ jsonrpc: '2.0', method: 'getNodeVersion', id: 1 });
    for (let i = 0; i < 2000 && warnings.length === 0; i++) {
      slow.ws.send(call);
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await expect.poll(() => warnings.length, { timeout: 10_000 }).toBe(1);
    expect(warnings[0]).toMatchObject({ code: 1008, limit: 256 * 1024 });
    expect((await other.call('getBlockCount')).result).toBe(1);
    const code = closed(slow.ws);
    (slow.ws as unknown as { _socket: Socket })._socket.resume();
    expect([1008, 1006]).toContain(await code);
  });

  it('is not cut off when the sender waits for `drained` between sends', async () => {
    const warnings: object[] = [];
    const log: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (obj) => warnings.push(obj),
      error: () => undefined,
    };
    const chunk = 'y'.repeat(16 * 1024);
    const handlers: Partial<Handlers> = {
      subscribe: (_params, context) => {
        const subscription = requirePush(context, 'subscribe').open(() => undefined);
        void (async () => {
          for (let i = 0; i < 1000; i++) {
            subscription.send({ i, chunk });
            await subscription.drained();
          }
        })();
        return subscription.id;
      },
    };
    // 16 MB in all: more than the kernel's socket buffers take, far more than the limit.
    const t = await serve({ handlers, wsMaxBufferedBytes: 256 * 1024, log });
    const client = await connect(t.port);
    await client.call('subscribe', { event: 'newBlocks' });
    await client.received(1001);
    expect(warnings).toEqual([]);
  });
});
