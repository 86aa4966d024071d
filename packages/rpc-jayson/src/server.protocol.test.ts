import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Handlers, Logger } from './options.js';
import { startTestServer, type TestServer, walletOf } from './test-server.js';

const running: TestServer[] = [];
async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

const handlers: Partial<Handlers> = {
  getBlockCount: () => 42,
  getBlockInfo: ({ block }) => ({ block }) as never,
};

function recordingLogger(): Logger & { entries: { level: string; obj: object; msg?: string }[] } {
  const entries: { level: string; obj: object; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) =>
    void entries.push({ level, obj, msg });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('JSON-RPC 2.0 responses', () => {
  it('answers a call with the result and the id as a string', async () => {
    const t = await serve({ handlers });
    const reply = await t.http('{"jsonrpc":"2.0","method":"getBlockCount","id":7}');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: '7', result: 42 });
  });

  it('keeps a string id and a null id', async () => {
    const t = await serve({ handlers });
    expect((await t.call('getBlockCount', undefined, 'abc')).id).toBe('abc');
    const reply = await t.http('{"jsonrpc":"2.0","method":"getBlockCount","id":null}');
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: null, result: 42 });
  });

  it('answers a parse error with HTTP 200, -32700 and id null', async () => {
    const t = await serve({ handlers });
    const reply = await t.http('{"jsonrpc":"2.0","method":');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error', data: { reason: 'PARSE_ERROR' } },
      id: null,
    });
  });

  it('treats an empty body as a parse error', async () => {
    const t = await serve({ handlers });
    const reply = await t.http('');
    expect((reply.json as { error: { code: number } }).error.code).toBe(-32700);
  });

  it.each([
    ['jsonrpc missing', '{"method":"getBlockCount","id":1}', '1'],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","method":"getBlockCount","id":1}', '1'],
    ['method not a string', '{"jsonrpc":"2.0","method":5,"id":1}', '1'],
    ['method missing', '{"jsonrpc":"2.0","id":"a"}', 'a'],
    ['id an object', '{"jsonrpc":"2.0","method":"getBlockCount","id":{}}', null],
    ['id an array', '{"jsonrpc":"2.0","method":"getBlockCount","id":[1]}', null],
    ['id a boolean', '{"jsonrpc":"2.0","method":"getBlockCount","id":true}', null],
    ['a string request', '"getBlockCount"', null],
    ['a number request', '5', null],
    ['null request', 'null', null],
  ])('refuses an invalid request (%s) with -32600', async (_title, body, id) => {
    const t = await serve({ handlers });
    const reply = await t.http(body);
    expect(reply.status).toBe(200);
    const response = reply.json as { id: unknown; error: { code: number; data: unknown } };
    expect(response.error.code).toBe(-32600);
    expect(response.error.data).toEqual({ reason: 'INVALID_REQUEST' });
    expect(response.id).toBe(id);
  });

  it.each([
    ['a string', '"x"'],
    ['a number', '5'],
    ['null', 'null'],
    ['a boolean', 'true'],
  ])('refuses params that are %s with -32600', async (_title, params) => {
    const t = await serve({ handlers });
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"getBlockCount","params":${params},"id":3}`,
    );
    expect(reply.json).toMatchObject({ id: '3', error: { code: -32600 } });
  });

  it('answers an unknown method with -32601 and a did-you-mean for a wrong case', async () => {
    const t = await serve({ handlers });
    const response = await t.call('getblockcount');
    expect(response.error).toEqual({
      code: -32601,
      message: "method 'getblockcount' not found; did you mean 'getBlockCount'?",
      data: { reason: 'METHOD_NOT_FOUND' },
    });
  });

  it('suggests a near name, and nothing for a far one', async () => {
    const t = await serve({ handlers });
    expect((await t.call('getBlokCount')).error).toMatchObject({
      message: "method 'getBlokCount' not found; did you mean 'getBlockCount'?",
    });
    expect((await t.call('transferEverything')).error).toMatchObject({
      message: "method 'transferEverything' not found",
    });
    expect((await t.call('constructor')).error).toMatchObject({ code: -32601 });
  });

  it('answers -32602 naming the parameter and why', async () => {
    const t = await serve({ handlers });
    const response = await t.call('getBlockInfo', { block: 'abc' });
    expect(response.error).toEqual({
      code: -32602,
      message: `parameter 'block' must be an integer, got "abc"`,
      data: { reason: 'INVALID_PARAMS', param: 'block' },
    });
  });

  it('coerces a numeric string before the handler runs', async () => {
    const t = await serve({ handlers });
    expect((await t.call('getBlockInfo', { block: '12' })).result).toEqual({ block: 12 });
  });

  it('takes positional params', async () => {
    const t = await serve({ handlers });
    expect((await t.call('getBlockInfo', [3])).result).toEqual({ block: 3 });
  });

  it('never echoes a secret in an error', async () => {
    const t = await serve({ handlers });
    const response = await t.call('unlockWallet', { wallet: walletOf('a'), passphrase: 987654321 });
    expect(JSON.stringify(response)).not.toContain('987654321');
    expect(response.error).toMatchObject({ code: -32602, data: { param: 'passphrase' } });
  });

  it('maps a domain error (code and reason) to code, message and data', async () => {
    const error = Object.assign(new Error('wallet CH00 not found'), {
      code: 1010,
      reason: 'NOT_FOUND',
      param: 'wallet',
    });
    const t = await serve({
      handlers: {
        getWalletInfo: () => {
          throw error;
        },
      },
    });
    const response = await t.call('getWalletInfo', { wallet: walletOf('0') });
    expect(response.error).toEqual({
      code: 1010,
      message: 'wallet CH00 not found',
      data: { reason: 'NOT_FOUND', param: 'wallet' },
    });
  });

  it('answers any other failure with -32603 and no details, and logs it', async () => {
    const log = recordingLogger();
    const t = await serve({
      log,
      handlers: {
        getBlockCount: async () => {
          throw new Error('disk /secret/path exploded');
        },
      },
    });
    const reply = await t.http('{"jsonrpc":"2.0","method":"getBlockCount","id":1}');
    expect(reply.json).toEqual({
      jsonrpc: '2.0',
      id: '1',
      error: { code: -32603, message: 'Internal error', data: { reason: 'INTERNAL_ERROR' } },
    });
    expect(reply.text).not.toContain('exploded');
    expect(reply.text).not.toContain('secret');
    const logged = log.entries.find((entry) => entry.level === 'error');
    expect(logged?.obj).toMatchObject({ method: 'getBlockCount' });
  });

  it('maps a handler that throws synchronously the same way', async () => {
    const t = await serve({
      handlers: {
        getBlockCount: () => {
          throw Object.assign(new Error('locked'), { code: 1015, reason: 'WALLET_LOCKED' });
        },
      },
    });
    expect((await t.call('getBlockCount')).error).toEqual({
      code: 1015,
      message: 'locked',
      data: { reason: 'WALLET_LOCKED' },
    });
  });

  it('answers -32603 for a result JSON cannot carry, and keeps the rest of a batch', async () => {
    const log = recordingLogger();
    const t = await serve({
      log,
      handlers: { getBlockCount: () => 10n as never, getPendingCount: () => 3 },
    });
    expect((await t.call('getBlockCount', undefined, 4)).error).toMatchObject({ code: -32603 });
    const reply = await t.http(
      '[{"jsonrpc":"2.0","method":"getPendingCount","id":1},{"jsonrpc":"2.0","method":"getBlockCount","id":2}]',
    );
    expect(reply.json).toEqual([
      { jsonrpc: '2.0', id: '1', result: 3 },
      {
        jsonrpc: '2.0',
        id: '2',
        error: { code: -32603, message: 'Internal error', data: { reason: 'INTERNAL_ERROR' } },
      },
    ]);
    expect(log.entries.some((entry) => entry.level === 'error')).toBe(true);
  });

  it('answers -32001 NOT_AVAILABLE for a catalogue method without a handler', async () => {
    const t = await serve({ handlers: {} });
    const response = await t.call('getBlockCount');
    expect(response.error).toEqual({
      code: -32001,
      message: "method 'getBlockCount' is not available yet",
      data: { reason: 'NOT_AVAILABLE' },
    });
  });
});

describe('notifications and batches', () => {
  it('answers a notification with 204 and no body, and still runs it', async () => {
    let ran = 0;
    const t = await serve({ handlers: { getBlockCount: () => ++ran } });
    const reply = await t.http('{"jsonrpc":"2.0","method":"getBlockCount"}');
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(ran).toBe(1);
  });

  it('sends nothing for a failing notification', async () => {
    const t = await serve({ handlers });
    for (const body of [
      '{"jsonrpc":"2.0","method":"noSuchMethod"}',
      '{"jsonrpc":"2.0","method":"getBlockInfo","params":{"block":"x"}}',
      '{"jsonrpc":"2.0","method":"sendTo"}',
    ]) {
      const reply = await t.http(body);
      expect(reply.status).toBe(204);
      expect(reply.text).toBe('');
    }
  });

  it('answers a batch in request order while running it concurrently', async () => {
    const order: number[] = [];
    const t = await serve({
      handlers: {
        getBlockInfo: async ({ block }) => {
          // Later requests finish first: the reply order must still follow the request order.
          await new Promise((resolve) => setTimeout(resolve, (5 - block) * 20));
          order.push(block);
          return { block } as never;
        },
      },
    });
    const batch = [1, 2, 3, 4].map((block) => ({
      jsonrpc: '2.0',
      method: 'getBlockInfo',
      params: { block },
      id: block,
    }));
    const reply = await t.http(JSON.stringify(batch));
    expect(order).toEqual([4, 3, 2, 1]);
    expect(reply.json).toEqual(
      [1, 2, 3, 4].map((block) => ({ jsonrpc: '2.0', id: String(block), result: { block } })),
    );
  });

  it('mixes synchronous and asynchronous handlers in one batch, in order', async () => {
    const t = await serve({
      handlers: {
        getBlockCount: () => 1,
        getPendingCount: async () => {
          await new Promise((resolve) => setTimeout(resolve, 10));
          return 2;
        },
      },
    });
    const methods = ['getPendingCount', 'getBlockCount', 'getPendingCount', 'getBlockCount'];
    const reply = await t.http(
      JSON.stringify(methods.map((method, id) => ({ jsonrpc: '2.0', method, id }))),
    );
    expect((reply.json as { result: number }[]).map((r) => r.result)).toEqual([2, 1, 2, 1]);
  });

  it('leaves notifications out of a batch reply', async () => {
    const t = await serve({ handlers });
    const reply = await t.http(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'getBlockCount', id: 'a' },
        { jsonrpc: '2.0', method: 'getBlockCount' },
        { jsonrpc: '2.0', method: 'nope', id: 'b' },
      ]),
    );
    const responses = reply.json as { id: string }[];
    expect(responses.map((r) => r.id)).toEqual(['a', 'b']);
    expect(responses[1]).toMatchObject({ error: { code: -32601 } });
  });

  it('answers 204 for a batch of notifications only', async () => {
    const t = await serve({ handlers });
    const reply = await t.http(
      '[{"jsonrpc":"2.0","method":"getBlockCount"},{"jsonrpc":"2.0","method":"getBlockCount"}]',
    );
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  });

  it('answers an empty batch with a single -32600', async () => {
    const t = await serve({ handlers });
    const reply = await t.http('[]');
    expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(Array.isArray(reply.json)).toBe(false);
  });

  it('answers [1] with an array of one -32600', async () => {
    const t = await serve({ handlers });
    const reply = await t.http('[1]');
    expect(reply.json).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'request must be an object',
          data: { reason: 'INVALID_REQUEST' },
        },
      },
    ]);
  });

  it('refuses a batch over the limit with one -32600', async () => {
    const t = await serve({ handlers, maxBatch: 3 });
    const call = { jsonrpc: '2.0', method: 'getBlockCount', id: 1 };
    const reply = await t.http(JSON.stringify([call, call, call, call]));
    expect(reply.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'batch too large (4 > 3)',
        data: { reason: 'INVALID_REQUEST' },
      },
    });
    const ok = await t.http(JSON.stringify([call, call, call]));
    expect(ok.json).toHaveLength(3);
  });
});

describe('robustness', () => {
  it('keeps serving after garbage bodies and garbage bytes on the socket', async () => {
    const t = await serve({ handlers });
    for (const body of ['\u0000\u0001', '{"a":', ']]', '{}', '[[]]', '\uFFFF'.repeat(100)]) {
      const reply = await t.http(body);
      expect(reply.status).toBe(200);
    }
    await new Promise<void>((resolve) => {
      const socket = connect(t.port, '127.0.0.1', () => {
        socket.end(Buffer.from([0x16, 0x03, 0x01, 0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]));
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    expect((await t.call('getBlockCount')).result).toBe(42);
  });

  it('logs each call at debug with its method and duration only', async () => {
    const log = recordingLogger();
    const t = await serve({ log, handlers: { unlockWallet: () => true } });
    await t.call('unlockWallet', { wallet: walletOf('b'), passphrase: 'hunter2-secret' });
    const debug = log.entries.filter((entry) => entry.level === 'debug');
    expect(debug).toHaveLength(1);
    expect(Object.keys(debug[0]!.obj).sort()).toEqual(['method', 'ms']);
    expect(JSON.stringify(log.entries)).not.toContain('hunter2');
  });
});
