import { createServer } from 'node:net';
import { catalogue, type MethodName, type WalletInfo } from '@chain/spec';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { type BatchCall, type ClientGroup, createClient } from './client.js';
import { AmountError, RpcError, TimeoutError, TransportError } from './errors.js';
import {
  type CannedServer,
  type RecordedRequest,
  replyJson,
  replyResult,
  startCannedServer,
} from './testing/canned-server.js';

const WALLET = `CH${'ab'.repeat(23)}`;
const RECEIVER = `CH${'cd'.repeat(23)}`;

const WALLET_INFO: WalletInfo = {
  account: 3,
  updated_active: 10,
  updated_passive: 12,
  n_operation: 2,
  balance: '1000000000000000000',
  wallet: WALLET,
  volume_lock: '0',
  volume_timelock: '0',
  state: 'normal wallet',
};

let server: CannedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(handler: Parameters<typeof startCannedServer>[0]): Promise<CannedServer> {
  server = await startCannedServer(handler);
  return server;
}

function methodOf(request: RecordedRequest): string {
  return (request.body as { method: string }).method;
}

describe('calls', () => {
  it('sends a JSON-RPC 2.0 request and returns the typed result', async () => {
    const node = await start((request, response) => replyResult(response, request, WALLET_INFO));
    const client = createClient({ url: node.url });

    const info = await client.wallet.getWalletInfo({ wallet: WALLET });

    expectTypeOf(info).toEqualTypeOf<WalletInfo>();
    expect(info).toEqual(WALLET_INFO);
    expect(node.requests).toHaveLength(1);
    const [sent] = node.requests;
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({
      jsonrpc: '2.0',
      method: 'getWalletInfo',
      params: { wallet: WALLET },
      id: expect.any(Number),
    });
  });

  it('types results from the catalogue and sends {} for a method without params', async () => {
    const node = await start((request, response) => replyResult(response, request, 42));
    const client = createClient({ url: node.url });

    const height = await client.call('getBlockCount');
    const viaGroup = await client.block.getBlockCount();

    expectTypeOf(height).toEqualTypeOf<number>();
    expectTypeOf(viaGroup).toEqualTypeOf<number>();
    expect([height, viaGroup]).toEqual([42, 42]);
    expect(node.requests.map((request) => (request.body as { params: unknown }).params)).toEqual([
      {},
      {},
    ]);
    // Required params are required by the types; optional-only params may be omitted.
    // @ts-expect-error getWalletInfo needs { wallet }
    expectTypeOf(client.wallet.getWalletInfo).toBeCallableWith();
    expectTypeOf(client.wallet.getKeyStoreInfo).toBeCallableWith();
  });

  it('has one function per catalogue method, in its group, that calls that method', async () => {
    const node = await start((request, response) => replyResult(response, request, null));
    const client = createClient({ url: node.url, retries: 0 });
    // subscribe/unsubscribe are the push socket's (client.subscribe), not HTTP calls.
    const names = (Object.keys(catalogue) as MethodName[]).filter(
      (name) => catalogue[name].group !== 'push',
    );
    expect(names.length).toBeGreaterThan(50);

    for (const name of names) {
      const group = client[catalogue[name].group as ClientGroup] as Record<
        string,
        (params: object) => unknown
      >;
      expect(group[name], name).toBeTypeOf('function');
      await group[name]({ probe: name });
    }

    expect(node.requests.map(methodOf)).toEqual(names);
    expect(node.requests.map((request) => (request.body as { params: unknown }).params)).toEqual(
      names.map((name) => ({ probe: name })),
    );
    const ids = node.requests.map((request) => (request.body as { id: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns the nested getNodePart result as the node sends it', async () => {
    const part = {
      nodeIndex: 1,
      penalty: 0,
      nodeWallet: WALLET,
      minerWallet: RECEIVER,
      state: 'MN',
      startTimestamp: 1_700_000_000,
      lockTime: 100,
      code: 'abc',
    };
    const node = await start((request, response) =>
      replyResult(response, request, { result: part, id: 1, jsonrpc: '2.0' }),
    );
    const client = createClient({ url: node.url });

    const reply = await client.participation.getNodePart({ wallet: WALLET });

    expect(reply.result.code).toBe('abc');
    expect(reply).toEqual({ result: part, id: 1, jsonrpc: '2.0' });
  });
});

describe('amounts', () => {
  it('go out as the decimal strings given and come back as strings, never as JS numbers', async () => {
    const sent = { ...WALLET_INFO, balance: '12345678901234567891' };
    const node = await start((request, response) => replyResult(response, request, sent));
    const client = createClient({ url: node.url });
    const params = {
      sender: WALLET,
      passphrase: 'pw',
      receiver: RECEIVER,
      amount: '1.234567890123456789',
    };
    await client.operations.sendTo(params);
    expect(node.requests[0]!.text).toContain('"amount":"1.234567890123456789"');
    const info = await client.wallet.getWalletInfo({ wallet: WALLET });
    expect(info.balance).toBe('12345678901234567891');
  });

  it.each([
    ['a number', 0.1 + 0.2],
    ['an unsafe integer', Number('12345678901234567891')],
    ['a bigint', 10n ** 18n],
  ])('refuses %s for an amount param before sending anything', async (_title, amount) => {
    const node = await start((request, response) => replyResult(response, request, {}));
    const client = createClient({ url: node.url });
    const params = { sender: WALLET, passphrase: 'pw', receiver: RECEIVER, amount };
    const refused = client.call('sendTo', params as never);
    await expect(refused).rejects.toBeInstanceOf(AmountError);
    await expect(refused).rejects.toMatchObject({
      reason: 'INVALID_AMOUNT',
      message: expect.stringContaining("'amount' must be a decimal string"),
    });
    const positional = [WALLET, 'pw', RECEIVER, amount];
    await expect(client.call('sendTo', positional as never)).rejects.toBeInstanceOf(AmountError);
    await expect(
      client.batch([{ method: 'createToken', params: { totalAmount: amount } as never }]),
    ).rejects.toBeInstanceOf(AmountError);
    expect(node.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps a JSON-RPC error reply to RpcError with code, reason and param', async () => {
    const node = await start((request, response) =>
      replyJson(response, {
        jsonrpc: '2.0',
        id: String((request.body as { id: number }).id),
        error: {
          code: 1030,
          message: 'Wrong passphrase',
          data: { reason: 'WRONG_PASSPHRASE', param: 'passphrase' },
        },
      }),
    );
    const client = createClient({ url: node.url });

    const error = await client.operations
      .sendTo({ sender: WALLET, passphrase: 'nope', receiver: RECEIVER, amount: '1' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({
      name: 'RpcError',
      code: 1030,
      message: 'Wrong passphrase',
      reason: 'WRONG_PASSPHRASE',
      param: 'passphrase',
      data: { reason: 'WRONG_PASSPHRASE', param: 'passphrase' },
    });
  });

  it('maps a protocol error without data, whatever the HTTP status', async () => {
    const node = await start((request, response) =>
      replyJson(
        response,
        {
          jsonrpc: '2.0',
          id: String((request.body as { id: number }).id),
          error: { code: -32601, message: 'Method not found' },
        },
        404,
      ),
    );
    const client = createClient({ url: node.url });

    const error = await client.call('getBlockCount').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32601, message: 'Method not found' });
    expect((error as RpcError).reason).toBeUndefined();
    expect((error as RpcError).param).toBeUndefined();
    expect(node.requests).toHaveLength(1); // an answer is an answer: never retried
  });

  it('reports an HTTP error status without a JSON-RPC body as TransportError', async () => {
    const node = await start((_request, response) => {
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end('Unauthorized');
    });
    const client = createClient({ url: node.url, retryDelayMs: 1 });

    const error = await client.call('getBlockCount').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'HTTP_STATUS', status: 401 });
    expect(node.requests).toHaveLength(1); // 401 is not transient
  });

  it('reports a 200 reply that is not JSON-RPC as an invalid response', async () => {
    const node = await start((_request, response) => replyJson(response, { hello: 'world' }));
    const client = createClient({ url: node.url });

    await expect(client.call('getBlockCount')).rejects.toMatchObject({
      name: 'TransportError',
      reason: 'INVALID_RESPONSE',
    });
  });

  it('reports a refused connection as a network TransportError', async () => {
    const port = await closedPort();
    const client = createClient({ url: `http://127.0.0.1:${port}/`, retries: 0 });

    const error = await client.call('getBlockCount').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TransportError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as TransportError).reason).toBe('NETWORK');
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  describe('in a page (a location with an origin)', () => {
    afterEach(() => vi.unstubAllGlobals());
    // What a browser's fetch throws for a cross-origin call that is refused or unreachable.
    const browserFetch: typeof fetch = async () => {
      throw new TypeError('Failed to fetch');
    };

    it('names --rpc-cors with the page origin and the node URL when a cross-origin fetch fails', async () => {
      vi.stubGlobal('location', { origin: 'http://127.0.0.1:5173' });
      const client = createClient({ url: 'http://127.0.0.1:9713', fetch: browserFetch });

      const error = await client.call('getBlockCount').catch((caught: unknown) => caught);

      expect(error).toMatchObject({ name: 'TransportError', reason: 'NETWORK' });
      expect((error as Error).message).toBe(
        'request to http://127.0.0.1:9713/ failed: Failed to fetch (from a page of http://127.0.0.1:5173, a browser reports a node that is not running at http://127.0.0.1:9713 and one that does not allow this origin the same way: start the node with --rpc-cors http://127.0.0.1:5173)',
      );
    });

    it('does not name CORS for a node of the page own origin, nor for an error with a cause', async () => {
      vi.stubGlobal('location', { origin: 'http://127.0.0.1:9713' });
      const sameOrigin = createClient({ url: 'http://127.0.0.1:9713/', fetch: browserFetch });
      const error = await sameOrigin.call('getBlockCount').catch((caught: unknown) => caught);
      expect((error as Error).message).toBe(
        'request to http://127.0.0.1:9713/ failed: Failed to fetch',
      );

      // Node's fetch (undici) says why in its cause: that reason, not a guess, is the message.
      vi.stubGlobal('location', { origin: 'http://127.0.0.1:5173' });
      const port = await closedPort();
      const refused = createClient({ url: `http://127.0.0.1:${port}/`, retries: 0 });
      const nodeError = await refused.call('getBlockCount').catch((caught: unknown) => caught);
      expect((nodeError as Error).message).toContain('ECONNREFUSED');
      expect((nodeError as Error).message).not.toContain('--rpc-cors');
    });
  });

  it('sends credentials of the URL as basic authentication, never in messages', async () => {
    const node = await start((request, response) => replyResult(response, request, 1));
    const withCredentials = node.url.replace('http://', 'http://alice:s3cr%40t@');
    const client = createClient({ url: withCredentials });

    await expect(client.call('getBlockCount')).resolves.toBe(1);
    const expected = Buffer.from('alice:s3cr@t', 'utf8').toString('base64');
    expect(node.requests[0].headers.authorization).toBe(`Basic ${expected}`);
    expect(client.url).toBe(node.url);

    const port = await closedPort();
    const unreachable = createClient({ url: `http://alice:s3cret@127.0.0.1:${port}/`, retries: 0 });
    const error = await unreachable.call('getBlockCount').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'NETWORK' });
    expect((error as Error).message).not.toContain('s3cret');
  });
});

describe('timeouts', () => {
  it('gives up with TimeoutError when no reply arrives within timeoutMs', async () => {
    const node = await start(() => {
      // never answers
    });
    const client = createClient({ url: node.url, timeoutMs: 150, retries: 0 });
    const started = performance.now();

    const error = await client.call('getBlockCount').catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;

    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'TIMEOUT', timeoutMs: 150 });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('times out a reply whose body stalls after the headers', async () => {
    const node = await start((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"jsonrpc":"2.0",');
    });
    const client = createClient({ url: node.url, timeoutMs: 150, retries: 0 });

    await expect(client.call('getBlockCount')).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('retries', () => {
  /** The node's answer to a request that did not reach it whole in time (nothing ran). */
  const REQUEST_TIMEOUT_REPLY = {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32010,
      message: 'request not received in time',
      data: { reason: 'REQUEST_TIMEOUT' },
    },
  };

  /** Fails the first `failures` requests the given way, then answers 7. */
  function flaky(failures: number, how: 'reset' | 503 | 408 | 'hang'): Parameters<typeof start>[0] {
    return (request, response, index) => {
      if (index >= failures) return replyResult(response, request, 7);
      if (how === 'reset') return response.socket?.destroy();
      if (how === 503) return replyJson(response, { error: 'busy' }, 503);
      if (how === 408) return replyJson(response, REQUEST_TIMEOUT_REPLY, 408);
      // 'hang': leave the request unanswered, the client's timeout ends it
    };
  }

  it.each(['reset', 503, 408, 'hang'] as const)(
    'retries a read after a transient failure (%s)',
    async (how) => {
      const node = await start(flaky(2, how));
      // The answering attempt must beat the timeout on two busy cores too: 200 ms was not enough.
      const client = createClient({ url: node.url, retries: 2, retryDelayMs: 5, timeoutMs: 600 });

      await expect(client.block.getBlockCount()).resolves.toBe(7);
      expect(node.requests).toHaveLength(3);
      expect(new Set(node.requests.map((request) => JSON.stringify(request.body))).size).toBe(1);
    },
  );

  it('stops after `retries` extra attempts', async () => {
    const node = await start(flaky(10, 503));
    const client = createClient({ url: node.url, retries: 2, retryDelayMs: 5 });

    await expect(client.call('getWalletInfo', { wallet: WALLET })).rejects.toMatchObject({
      reason: 'HTTP_STATUS',
      status: 503,
    });
    expect(node.requests).toHaveLength(3);
  });

  it.each(['reset', 503, 'hang'] as const)(
    'never retries a call that changes state (%s)',
    async (how) => {
      const node = await start(flaky(1, how));
      const client = createClient({ url: node.url, retries: 3, retryDelayMs: 5, timeoutMs: 200 });

      await expect(
        client.operations.sendTo({
          sender: WALLET,
          passphrase: 'pw',
          receiver: RECEIVER,
          amount: '1',
        }),
      ).rejects.toBeInstanceOf(TransportError);
      await expect(client.wallet.newWallet({ passphrase: 'pw' })).resolves.toBe(7);
      expect(node.requests.map(methodOf)).toEqual(['sendTo', 'newWallet']);
    },
  );

  it("gives a call that changes state the node's REQUEST_TIMEOUT, not retried", async () => {
    const node = await start(flaky(1, 408));
    const client = createClient({ url: node.url, retries: 3, retryDelayMs: 5 });

    await expect(
      client.operations.sendTo({
        sender: WALLET,
        passphrase: 'pw',
        receiver: RECEIVER,
        amount: '1',
      }),
    ).rejects.toMatchObject({ code: -32010, reason: 'REQUEST_TIMEOUT' });
    expect(node.requests.map(methodOf)).toEqual(['sendTo']);
  });

  it.each(['reset', 503, 408] as const)(
    'retries a sendTo that carries its reference, which the node pays once (%s)',
    async (how) => {
      const node = await start(flaky(1, how));
      const client = createClient({ url: node.url, retries: 3, retryDelayMs: 5, timeoutMs: 600 });

      await expect(
        client.operations.sendTo({
          sender: WALLET,
          passphrase: 'pw',
          receiver: RECEIVER,
          amount: '1',
          reference: 'withdrawal-77',
        }),
      ).resolves.toBe(7);
      expect(node.requests.map(methodOf)).toEqual(['sendTo', 'sendTo']);
      expect(new Set(node.requests.map((request) => JSON.stringify(request.body))).size).toBe(1);
    },
  );

  it('retries a batch of reads, but not a batch with one write', async () => {
    const node = await start((request, response, index) => {
      if (index === 0 || index === 2) return response.socket?.destroy();
      const calls = request.body as Array<{ id: number }>;
      replyJson(
        response,
        calls.map(({ id }) => ({ jsonrpc: '2.0', id: String(id), result: 1 })),
      );
    });
    const client = createClient({ url: node.url, retries: 1, retryDelayMs: 5 });

    await expect(
      client.batch([{ method: 'getBlockCount' }, { method: 'nodeUptime' }]),
    ).resolves.toEqual([1, 1]);
    await expect(
      client.batch([
        { method: 'getBlockCount' },
        { method: 'lockWallet', params: { wallet: WALLET } },
      ]),
    ).rejects.toMatchObject({ reason: 'NETWORK' });
    expect(node.requests).toHaveLength(3);
  });
});

describe('batch', () => {
  it('returns results in call order whatever the reply order, errors in their place', async () => {
    const node = await start((request, response) => {
      const calls = request.body as Array<{ id: number; method: string }>;
      const replies = calls.map(({ id, method }) =>
        method === 'getWalletInfo'
          ? {
              jsonrpc: '2.0',
              id: String(id),
              error: {
                code: 1002,
                message: 'Invalid account',
                data: { reason: 'INVALID_ACCOUNT' },
              },
            }
          : { jsonrpc: '2.0', id: String(id), result: method },
      );
      replyJson(response, replies.reverse());
    });
    const client = createClient({ url: node.url });

    const results = await client.batch([
      { method: 'getBlockCount' },
      { method: 'getWalletInfo', params: { wallet: WALLET } },
      { method: 'nodeUptime' },
      { method: 'getNodeVersion' },
    ]);

    expect(results[0]).toBe('getBlockCount');
    expect(results[1]).toBeInstanceOf(RpcError);
    expect(results[1]).toMatchObject({ code: 1002, reason: 'INVALID_ACCOUNT' });
    expect(results.slice(2)).toEqual(['nodeUptime', 'getNodeVersion']);
    expectTypeOf(results[1]).toEqualTypeOf<WalletInfo | RpcError>();
    expect(node.requests).toHaveLength(1);
    const sent = node.requests[0].body as Array<{ method: string; id: number }>;
    expect(sent.map((call) => call.method)).toEqual([
      'getBlockCount',
      'getWalletInfo',
      'nodeUptime',
      'getNodeVersion',
    ]);
    expect(new Set(sent.map((call) => call.id)).size).toBe(4);
  });

  it('keeps the order of 100 identical calls answered in a shuffled order', async () => {
    const node = await start((request, response) => {
      const calls = request.body as Array<{ id: number }>;
      const replies = calls.map(({ id }) => ({ jsonrpc: '2.0', id: String(id), result: id }));
      // a fixed permutation: odd positions first, then even ones
      replyJson(response, [
        ...replies.filter((_, i) => i % 2),
        ...replies.filter((_, i) => !(i % 2)),
      ]);
    });
    const client = createClient({ url: node.url });
    const calls: BatchCall[] = Array.from({ length: 100 }, () => ({ method: 'getBlockCount' }));

    const results = await client.batch(calls);

    const sentIds = (node.requests[0].body as Array<{ id: number }>).map(({ id }) => id);
    expect(results).toEqual(sentIds);
  });

  it('throws RpcError when the node refuses the whole batch', async () => {
    const node = await start((_request, response) =>
      replyJson(response, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Batch too large', data: { reason: 'BATCH_TOO_LARGE' } },
      }),
    );
    const client = createClient({ url: node.url });

    await expect(client.batch([{ method: 'getBlockCount' }])).rejects.toMatchObject({
      name: 'RpcError',
      code: -32600,
      reason: 'BATCH_TOO_LARGE',
    });
  });

  it('reports a batch reply that misses a call as an invalid response', async () => {
    const node = await start((request, response) => {
      const [first] = request.body as Array<{ id: number }>;
      replyJson(response, [{ jsonrpc: '2.0', id: String(first.id), result: 1 }]);
    });
    const client = createClient({ url: node.url });

    await expect(
      client.batch([{ method: 'getBlockCount' }, { method: 'getBlockCount' }]),
    ).rejects.toMatchObject({ reason: 'INVALID_RESPONSE' });
  });

  it('sends nothing for an empty batch', async () => {
    const node = await start((request, response) => replyResult(response, request, 1));
    const client = createClient({ url: node.url });

    await expect(client.batch([])).resolves.toEqual([]);
    expect(node.requests).toHaveLength(0);
  });
});

describe('headers', () => {
  it('sends basic authentication and extra headers', async () => {
    const node = await start((request, response) => replyResult(response, request, 1));
    const client = createClient({
      url: node.url,
      auth: { user: 'alice', password: 'pässwörd:x' },
      headers: { 'x-request-source': 'sdk-test' },
    });

    await client.call('getBlockCount');

    const { headers } = node.requests[0];
    // RFC 7617: base64 of the UTF-8 bytes of "user:password" (Node's Buffer as the reference).
    const expected = Buffer.from('alice:pässwörd:x', 'utf8').toString('base64');
    expect(headers.authorization).toBe(`Basic ${expected}`);
    expect(headers['x-request-source']).toBe('sdk-test');
  });

  it('uses the fetch given in the options', async () => {
    const seen: string[] = [];
    const client = createClient({
      url: 'http://node.invalid/',
      fetch: async (input, init) => {
        seen.push(`${String(input)} ${String(init?.body)}`);
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: '1', result: 5 }));
      },
    });

    await expect(client.call('getPendingCount')).resolves.toBe(5);
    expect(seen).toEqual([
      'http://node.invalid/ {"jsonrpc":"2.0","method":"getPendingCount","params":{},"id":1}',
    ]);
  });
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
