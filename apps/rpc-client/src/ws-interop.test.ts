import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { type ClientOptions, createClient } from './client.js';
import type { WebSocketConstructor, WebSocketLike } from './push-connection.js';

// issue 29 §5: the SDK's documented Node 20 push setup, `createClient({ url, WebSocket })` with the
// `ws` package, type-checks with @types/ws as it is (no cast), and really subscribes through it.

describe("the `ws` package's WebSocket", () => {
  it('is a WebSocketConstructor, at compile time, without a cast', () => {
    expectTypeOf(WebSocket).toMatchTypeOf<WebSocketConstructor>();
    expectTypeOf<InstanceType<typeof WebSocket>>().toMatchTypeOf<WebSocketLike>();
    expectTypeOf({ url: 'http://127.0.0.1:9713', WebSocket }).toMatchTypeOf<ClientOptions>();
    // The named export too (`import { WebSocket } from 'ws'`).
    expectTypeOf<typeof import('ws').WebSocket>().toMatchTypeOf<WebSocketConstructor>();
    // Browsers' (lib.dom) WebSocket keeps fitting: its handlers take richer events too.
    expectTypeOf<{
      onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null;
    }>().toMatchTypeOf<Pick<WebSocketLike, 'onclose'>>();
  });

  let server: WebSocketServer | undefined;
  afterEach(() => {
    for (const client of server?.clients ?? []) client.terminate();
    server?.close();
    server = undefined;
  });

  it('subscribes through `ws` against a WebSocket server and hears its notifications', async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server!.once('listening', resolve));
    const heard: string[] = [];
    server.on('connection', (socket, request) => {
      heard.push(`header ${request.headers['x-probe']}`);
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id: number; method: string };
        heard.push(message.method);
        if (message.method === 'getBlockCount') {
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: String(message.id), result: 7 }));
          return;
        }
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: String(message.id), result: '0x1' }));
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'subscription',
            params: { subscription: '0x1', result: { block: 7, hash: 'ab' } },
          }),
        );
      });
    });
    const port = (server.address() as AddressInfo).port;
    const client = createClient({
      url: `http://127.0.0.1:${port}/`,
      headers: { 'x-probe': 'yes' },
      WebSocket,
    });
    const iterator = client.subscribe('newBlocks')[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ block: 7 });
    expect(heard).toEqual(['header yes', 'getBlockCount', 'subscribe']);
    await iterator.return?.();
    client.close();
  });
});
