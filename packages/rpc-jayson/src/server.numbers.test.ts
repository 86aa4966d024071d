import { type AnyParam, catalogue, type MethodName } from '@chain/spec';
import { afterEach, describe, expect, it } from 'vitest';
import type { Handlers } from './options.js';
import { startTestServer, type TestServer, walletOf } from './test-server.js';

// JSON numbers are taken exactly as written, through the real HTTP server: raw bodies written by
// hand, so that the numbers really are unquoted.
const running: TestServer[] = [];
async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

const WALLET = walletOf('a');
const METHODS = Object.keys(catalogue) as MethodName[];

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
}

/** A server whose every method answers with the params its handler received. */
async function echoServer(): Promise<TestServer> {
  const echo = (params: unknown) => params;
  const handlers = Object.fromEntries(METHODS.map((name) => [name, echo])) as Partial<Handlers>;
  return serve({ handlers });
}

/** One call with `params` written as raw JSON text. */
async function rawCall(t: TestServer, method: string, params: string, id = '1'): Promise<Reply> {
  const reply = await t.http(
    `{"jsonrpc":"2.0","method":"${method}","params":${params},"id":${id}}`,
  );
  expect(reply.status).toBe(200);
  return reply.json as Reply;
}

describe('request ids', () => {
  it('come back with every digit', async () => {
    const t = await echoServer();
    const reply = await t.http(
      '{"jsonrpc":"2.0","method":"getBlockCount","id":12345678901234567890}',
    );
    expect(reply.text).toContain('"id":"12345678901234567890"');
    expect((reply.json as Reply).id).toBe('12345678901234567890');
  });

  it('come back as written: a fraction, an exponent, -0, and inside a batch', async () => {
    const t = await echoServer();
    const ids = ['1.50', '1e400', '-0', '0.1', '-98765432109876543210', '7'];
    const body = `[${ids.map((id) => `{"jsonrpc":"2.0","method":"getBlockCount","id":${id}}`).join(',')}]`;
    const reply = await t.http(body);
    expect((reply.json as Reply[]).map((entry) => entry.id)).toEqual(ids);
  });

  it('that are safe integers come back as the integer, however written', async () => {
    const t = await echoServer();
    const ids = ['7', '7.0', '7e0', '700e-2', '-3'];
    const body = `[${ids.map((id) => `{"jsonrpc":"2.0","method":"getBlockCount","id":${id}}`).join(',')}]`;
    const reply = await t.http(body);
    expect((reply.json as Reply[]).map((entry) => entry.id)).toEqual(['7', '7', '7', '7', '-3']);
  });

  it('keep the nested id of getNodePart the integer the spec types it, else refuse the call', async () => {
    const t = await echoServer();
    const params = `{"wallet":"${WALLET}"}`;
    const small = await rawCall(t, 'getNodePart', params, '12');
    expect(small.result).toMatchObject({ id: 12 });
    expect((await rawCall(t, 'getNodePart', params, '"12"')).result).toMatchObject({ id: 12 });
    expect((await rawCall(t, 'getNodePart', params, '-3')).result).toMatchObject({ id: -3 });
    for (const id of ['12345678901234567890', '7.5', '"abc"', 'null', '"12345678901234567890"']) {
      const reply = await rawCall(t, 'getNodePart', params, id);
      expect(reply.result, id).toBeUndefined();
      expect(reply.error, id).toMatchObject({ code: -32600, data: { reason: 'INVALID_REQUEST' } });
      expect(reply.error!.message, id).toMatch(/getNodePart nests the request id .* safe integer/);
    }
  });
});

describe('amounts given as JSON numbers', () => {
  it.each([
    ['12345678901234567891', '12345678901234567891'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['1.234567890123456789', '1.234567890123456789'],
    ['0.0000000000000000001', '0.0000000000000000001'],
    ['1.10', '1.10'],
    ['100', '100'],
    ['1.5', '1.5'],
    ['100000000000000000000000000000', '100000000000000000000000000000'],
  ])('%s reaches the handler as exactly that text', async (number, text) => {
    const t = await echoServer();
    const reply = await rawCall(
      t,
      'sendTo',
      `{"sender":"${WALLET}","receiver":"${walletOf('b')}","amount":${number},"passphrase":"pw"}`,
    );
    expect(reply.error).toBeUndefined();
    expect((reply.result as { amount: unknown }).amount).toBe(text);
  });

  it.each([['1e3'], ['1E-18'], ['-1'], ['-0'], ['2.5e+1']])(
    '%s (sign or exponent) is refused like the same string, naming the param',
    async (number) => {
      const t = await echoServer();
      for (const value of [number, `"${number}"`]) {
        const reply = await rawCall(
          t,
          'createToken',
          `{"wallet":"${WALLET}","passphrase":"pw","function":false,"name":"n","symbol":"S","summary":"s","totalAmount":${value},"decimal":0}`,
        );
        expect(reply.error).toMatchObject({
          code: -32602,
          data: { reason: 'INVALID_PARAMS', param: 'totalAmount' },
        });
        expect(reply.error?.message).toContain(number);
      }
    },
  );

  it('are exact in positional params too', async () => {
    const t = await echoServer();
    const reply = await rawCall(
      t,
      'sendTo',
      `["${WALLET}","pw","${walletOf('b')}",98765432109876543210.123456789012345678]`,
    );
    expect((reply.result as { amount: unknown }).amount).toBe(
      '98765432109876543210.123456789012345678',
    );
  });
});

describe('integers given as JSON numbers', () => {
  it('take a safe integer, however written in digits', async () => {
    const t = await echoServer();
    expect((await rawCall(t, 'getBlockInfo', '{"block":9007199254740991}')).result).toEqual({
      block: 9007199254740991,
    });
    // -0 has a sign: refused like -1, naming the param (docs/rpc.md, "Params").
    expect((await rawCall(t, 'getBlockInfo', '{"block":-0}')).error).toMatchObject({
      code: -32602,
      data: { param: 'block' },
    });
  });

  it.each([
    ['1.0000000000000001', 'must be an integer'],
    ['1.0', 'must be an integer'],
    ['1e2', 'must be an integer'],
    ['12345678901234567891', 'must be a safe integer'],
    ['9007199254740993', 'must be a safe integer'],
  ])('refuse %s naming the param (%s), never rounding it', async (number, why) => {
    const t = await echoServer();
    const reply = await rawCall(t, 'getBlockInfo', `{"block":${number}}`);
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'block' } });
    expect(reply.error?.message).toBe(`parameter 'block' ${why}, got ${number}`);
  });

  it('out of bounds are refused with the number as written', async () => {
    const t = await echoServer();
    const reply = await rawCall(t, 'getKeyStoreInfo', '{"max":0.0}');
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'max' } });
    expect(reply.error?.message).toContain('got 0.0');
  });
});

describe('other params and places', () => {
  it('string, wallet and boolean params refuse numbers as before, echoing them exactly', async () => {
    const t = await echoServer();
    const reply = await rawCall(t, 'getWalletInfo', '{"wallet":12345678901234567891}');
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'wallet' } });
    expect(reply.error?.message).toContain('got 12345678901234567891');
    const flag = await rawCall(
      t,
      'nodeStep3_2',
      `{"select":1.0,"code":"c","confirmer":"${WALLET}","passphrase":"pw","target":"${WALLET}"}`,
    );
    expect(flag.error).toMatchObject({ code: -32602, data: { param: 'select' } });
  });

  it("an object param (verifyMessage's data) gets such numbers as their text", async () => {
    const t = await echoServer();
    const reply = await rawCall(
      t,
      'verifyMessage',
      '{"data":{"msg":"m","n":12345678901234567891,"list":[1,0.10],"small":5}}',
    );
    expect(reply.result).toEqual({
      data: { msg: 'm', n: '12345678901234567891', list: [1, '0.10'], small: 5 },
    });
  });

  it('keeps JSON semantics otherwise: __proto__ stays a plain key; a repeated key is refused', async () => {
    const t = await echoServer();
    const reply = await rawCall(t, 'verifyMessage', '{"data":{"__proto__":{"x":1},"v":2.50}}');
    const data = (reply.result as { data: Record<string, unknown> }).data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'v']);
    expect(data.v).toBe('2.50');
    // JSON.parse would keep the last `v` without a word (issue 42): the key is named instead.
    const repeated = await rawCall(t, 'verifyMessage', '{"data":{"v":1,"v":2.50}}');
    expect(repeated.error).toMatchObject({ code: -32602, data: { param: 'data' } });
  });

  it('a params or request that is a number is refused as before', async () => {
    const t = await echoServer();
    const params = await t.http('{"jsonrpc":"2.0","method":"getBlockCount","params":1e400,"id":1}');
    expect(params.json).toMatchObject({ id: '1', error: { code: -32600 } });
    const request = await t.http('12345678901234567891');
    expect(request.json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('a body too deep to read exactly is refused with -32600, never answered from rounded numbers', async () => {
    const t = await echoServer();
    const depth = 50_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const inexact = await t.http(
      `{"jsonrpc":"2.0","method":"verifyMessage","params":{"data":{"deep":${deep},"n":0.10}},"id":1}`,
    );
    expect(inexact.json).toMatchObject({
      id: null,
      error: { code: -32600, data: { reason: 'INVALID_REQUEST' } },
    });
    // Without such a number the same depth is served as before.
    const exact = await t.http(
      `{"jsonrpc":"2.0","method":"getBlockCount","params":{},"deep":${deep},"id":1}`,
    );
    expect(exact.json).toMatchObject({ id: '1', result: {} });
  });

  it('the result cache tells a number as written from the value JS would read', async () => {
    let runs = 0;
    const t = await serve({
      stateVersion: () => 1,
      handlers: {
        getKeyStoreInfo: ({ max }) => {
          runs++;
          return [{ max }] as never;
        },
      },
    });
    expect((await rawCall(t, 'getKeyStoreInfo', '{"max":10}')).result).toEqual([{ max: 10 }]);
    expect((await rawCall(t, 'getKeyStoreInfo', '{"max":10}')).result).toEqual([{ max: 10 }]);
    expect(runs).toBe(1);
    for (const written of ['1e1', '10.0', '10.000000000000001']) {
      const reply = await rawCall(t, 'getKeyStoreInfo', `{"max":${written}}`);
      expect(reply.error).toMatchObject({ code: -32602, data: { param: 'max' } });
    }
  });
});

describe('blockchainStart with the repeated mine key and an explicit share', () => {
  const params = (share: string, extra = '') =>
    `{"code":"N1","wallet":"${WALLET}","passphrase":"pw","mine":"${walletOf('b')}","minepass":"mp","mine":"${walletOf('c')}"${extra},"share":"${share}","nodes":""}`;

  it('refuses conflicting values naming share', async () => {
    const t = await echoServer();
    const reply = await rawCall(t, 'blockchainStart', params(walletOf('d')));
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { reason: 'INVALID_PARAMS', param: 'share' },
    });
    expect(reply.error?.message).toContain("'share'");
  });

  it('takes equal values', async () => {
    const t = await echoServer();
    const reply = await rawCall(t, 'blockchainStart', params(walletOf('c')));
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ mine: walletOf('b'), share: walletOf('c') });
  });

  it('refuses mine repeated more often than it has meanings', async () => {
    const t = await echoServer();
    const reply = await rawCall(
      t,
      'blockchainStart',
      `{"code":"N1","wallet":"${WALLET}","passphrase":"pw","mine":"${walletOf('b')}","minepass":"mp","mine":"${walletOf('c')}","mine":"${walletOf('d')}","nodes":""}`,
    );
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'mine' } });
  });
});

// ---- Every amount and integer param of the catalogue ---------------------------------------------

/** A valid JSON text for a param of this kind (the other params of a call). */
function validText(param: AnyParam): string {
  const { bounds } = param;
  switch (param.kind) {
    case 'integer':
      return String(bounds.min ?? 0);
    case 'boolean':
      return 'true';
    case 'amount':
      return '"1"';
    case 'hex':
      return `"${'00'.repeat(bounds.exactBytes ?? 1)}"`;
    case 'wallet':
      return `"${WALLET}"`;
    case 'object':
      return '{}';
    case 'enum':
      return `"${bounds.values?.[0]}"`;
    default:
      return '"x"';
  }
}

const NUMERIC_PARAMS = METHODS.flatMap((method) =>
  Object.entries(catalogue[method].params as Record<string, AnyParam>)
    .filter(([, param]) => param.kind === 'amount' || param.kind === 'integer')
    .map(([name, param]) => ({ method, name, kind: param.kind })),
);

describe('every amount and integer param of the catalogue', () => {
  it('covers the methods the audit named', () => {
    const methods = new Set(NUMERIC_PARAMS.map((entry) => entry.method));
    for (const method of [
      'createToken',
      'sendTo',
      'rawSendTo',
      'privSendTo',
      'sendToken',
      'adminToken',
      'nodeStep1',
      'nodeStep3_1',
      'nodeStep5_1',
    ]) {
      expect(methods.has(method as MethodName)).toBe(true);
    }
  });

  it.each(NUMERIC_PARAMS.map((entry) => [`${entry.method}.${entry.name}`, entry] as const))(
    '%s: a JSON number of more than 15 digits is taken exactly or refused naming it',
    async (_title, { method, name, kind }) => {
      const t = await echoServer();
      const spec = catalogue[method].params as Record<string, AnyParam>;
      for (const number of ['12345678901234567891', '0.000000000000000001', '4294967295.0000001']) {
        const fields = Object.entries(spec).map(
          ([key, param]) => `"${key}":${key === name ? number : validText(param)}`,
        );
        const reply = await rawCall(t, method, `{${fields.join(',')}}`);
        if (reply.error === undefined) {
          const received = (reply.result as Record<string, unknown>)[name];
          expect(kind).toBe('amount');
          expect(received).toBe(number);
        } else {
          expect(reply.error).toMatchObject({ code: -32602, data: { param: name } });
          expect(reply.error.message).toContain(number);
        }
      }
    },
  );
});
