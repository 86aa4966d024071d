import { afterEach, describe, expect, it } from 'vitest';
import { repeatedKeys } from './repeated-keys.js';
import { startTestServer, type TestServer, walletOf } from './test-server.js';

// Issue 42: JSON.parse keeps the last of repeated keys without a word; the server refuses them,
// naming the key, except the one a method declares (blockchainStart's repeated `mine`).

const running: TestServer[] = [];
async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

const X = walletOf('a');
const Y = walletOf('b');

/** A server whose getWalletInfo, infoToken and verifyMessage answer with the params they got. */
async function echoServer(): Promise<{ t: TestServer; calls: unknown[] }> {
  const calls: unknown[] = [];
  const t = await serve({
    handlers: {
      getWalletInfo: (params) => {
        calls.push(params);
        return {} as never;
      },
      infoToken: (params) => {
        calls.push(params);
        return {} as never;
      },
      verifyMessage: (params) => {
        calls.push(params);
        return true;
      },
      blockchainStart: (params) => {
        calls.push(params);
        return {} as never;
      },
    },
  });
  return { t, calls };
}

describe('repeated keys of a request', () => {
  it('refuses a repeated param with -32602 naming it, and runs nothing', async () => {
    const { t, calls } = await echoServer();
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}","wallet":"${Y}"},"id":1}`,
    );
    expect(reply.json).toMatchObject({
      id: '1',
      error: { code: -32602, data: { reason: 'INVALID_PARAMS', param: 'wallet' } },
    });
    expect((reply.json as { error: { message: string } }).error.message).toContain(
      "parameter 'wallet' is repeated",
    );
    // The same value twice is still two keys: refused the same way (one rule, no comparing).
    const same = await t.http(
      `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}","wallet":"${X}"},"id":2}`,
    );
    expect(same.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
    // A key written with an escape is the same key.
    const escaped = await t.http(
      `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}","wall\\u0065t":"${Y}"},"id":3}`,
    );
    expect(escaped.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
    expect(calls).toEqual([]);
  });

  it('names a key repeated inside a param by its path, the param at fault', async () => {
    const { t, calls } = await echoServer();
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"verifyMessage","params":{"data":{"wallet":"${X}","msg":"a","msg":"b"}},"id":1}`,
    );
    expect(reply.json).toMatchObject({ error: { code: -32602, data: { param: 'data' } } });
    expect((reply.json as { error: { message: string } }).error.message).toContain(
      "key 'data.msg' is repeated",
    );
    expect(calls).toEqual([]);
  });

  it('refuses a repeated member of the request object with -32600', async () => {
    const { t, calls } = await echoServer();
    const method = await t.http(
      `{"jsonrpc":"2.0","method":"getBlockCount","method":"getWalletInfo","params":{"wallet":"${X}"},"id":1}`,
    );
    expect(method.json).toMatchObject({ id: '1', error: { code: -32600 } });
    expect((method.json as { error: { message: string } }).error.message).toContain("'method'");
    const params = await t.http(
      `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}"},"params":{"wallet":"${Y}"},"id":3}`,
    );
    expect(params.json).toMatchObject({ id: '3', error: { code: -32600 } });
    expect((params.json as { error: { message: string } }).error.message).toContain(
      "member 'params' is repeated",
    );
    // Which id to answer is what is ambiguous: null.
    const id = await t.http('{"jsonrpc":"2.0","method":"getBlockCount","id":1,"id":2}');
    expect(id.json).toMatchObject({ id: null, error: { code: -32600 } });
    expect(calls).toEqual([]);
  });

  it('answers each call of a batch on its own: only the one with a repeated key is refused', async () => {
    const { t, calls } = await echoServer();
    const reply = await t.http(
      `[{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}"},"id":1},` +
        `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${X}","wallet":"${Y}"},"id":2},` +
        `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${Y}"},"id":3}]`,
    );
    const replies = reply.json as Array<{ id: string; error?: { code: number } }>;
    expect(replies.map((r) => [r.id, r.error?.code])).toEqual([
      ['1', undefined],
      ['2', -32602],
      ['3', undefined],
    ]);
    expect(calls).toEqual([{ wallet: X }, { wallet: Y }]);
  });

  it("keeps blockchainStart's repeated mine (mine, then share), and refuses any other repeat there", async () => {
    const { t, calls } = await echoServer();
    const base = `"code":"N1","wallet":"${X}","passphrase":"pw","mine":"${X}","minepass":"mp","mine":"${Y}","nodes":""`;
    const ok = await t.http(
      `{"jsonrpc":"2.0","method":"blockchainStart","params":{${base}},"id":1}`,
    );
    expect(ok.json).toMatchObject({ result: {} });
    expect(calls).toMatchObject([{ mine: X, share: Y }]);
    const code = await t.http(
      `{"jsonrpc":"2.0","method":"blockchainStart","params":{${base},"code":"N2"},"id":2}`,
    );
    expect(code.json).toMatchObject({ error: { code: -32602, data: { param: 'code' } } });
    expect(calls).toHaveLength(1);
  });

  it('infoToken: wallet beside method and in params must agree; repeated beside method is refused', async () => {
    const { t, calls } = await echoServer();
    const same = await t.http(
      `{"jsonrpc":"2.0","method":"infoToken","wallet":"${X}","params":{"wallet":"${X}"},"id":1}`,
    );
    expect(same.json).toMatchObject({ result: {} });
    const different = await t.http(
      `{"jsonrpc":"2.0","method":"infoToken","wallet":"${X}","params":{"wallet":"${Y}"},"id":2}`,
    );
    expect(different.json).toMatchObject({
      error: { code: -32602, data: { reason: 'INVALID_PARAMS', param: 'wallet' } },
    });
    const positional = await t.http(
      `{"jsonrpc":"2.0","method":"infoToken","wallet":"${X}","params":["${Y}"],"id":3}`,
    );
    expect(positional.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
    const repeated = await t.http(
      `{"jsonrpc":"2.0","method":"infoToken","wallet":"${X}","wallet":"${Y}","id":4}`,
    );
    expect(repeated.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
    expect(calls).toEqual([{ wallet: X }]);
  });
});

describe('repeatedKeys', () => {
  it('finds none where there is none, colons inside strings included', () => {
    for (const text of [
      '{"a":"x:y","b":{"c":"::"}}',
      '[{"a":1},{"a":2}]',
      '{"a":{"b":1},"c":{"b":2}}',
      '{"a\\"":1,"a":2}',
    ]) {
      expect(repeatedKeys(text, JSON.parse(text)).size, text).toBe(0);
    }
  });

  it('finds them at any depth, per request of a batch, without recursion', () => {
    const text = '[{"a":1},{"p":{"q":[{"k":1,"k":2}]},"a":1,"a":2}]';
    const found = repeatedKeys(text, JSON.parse(text));
    expect([...found.entries()]).toEqual([
      [
        1,
        [
          { path: ['p', 'q', 0], key: 'k' },
          { path: [], key: 'a' },
        ],
      ],
    ]);
    const deep = `${'['.repeat(20000)}{"x":1,"x":2}${']'.repeat(20000)}`;
    expect(repeatedKeys(deep, JSON.parse(deep)).get(0)).toHaveLength(1);
  });
});
