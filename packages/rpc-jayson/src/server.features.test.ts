import type { CallStat } from '@chain/spec';
import { afterEach, describe, expect, it } from 'vitest';
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

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

const WALLET = walletOf('a');

describe('rpcCallStats and nodeUptime', () => {
  it('counts calls per catalogue method, sorted, TOTAL last', async () => {
    const t = await serve({
      handlers: {
        getBlockCount: () => 1,
        getPendingCount: async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return 0;
        },
      },
    });
    await t.call('getPendingCount');
    await t.call('getBlockCount');
    await t.call('getBlockCount');
    await t.call('getblockcount'); // unknown names are not counted
    await t.call('noSuchMethod');
    await t.http('[{"jsonrpc":"2.0","method":"getBlockCount"}]'); // notifications are calls too
    const stats = (await t.call('rpcCallStats')).result as CallStat[];
    expect(stats.map((row) => [row.method, row.calls])).toEqual([
      ['getBlockCount', 3],
      ['getPendingCount', 1],
      ['TOTAL', 4],
    ]);
    for (const row of stats) {
      expect(row.seconds).toMatch(/^\d+\.\d{6}$/);
      expect(row.secs_average).toMatch(/^\d+\.\d{6}$/);
    }
    const pending = stats[1]!;
    expect(Number(pending.seconds)).toBeGreaterThanOrEqual(0.025);
    expect(pending.secs_average).toBe(pending.seconds);
    const total = stats[2]!;
    const sum = Number(stats[0]!.seconds) + Number(pending.seconds);
    expect(Math.abs(Number(total.seconds) - sum)).toBeLessThanOrEqual(0.000002);
    expect(Number(total.secs_average)).toBeCloseTo(Number(total.seconds) / 4, 5);
    // The table is the server's own: the same rows (plus the rpcCallStats call just made).
    const after = t.server.callStats();
    expect(after.find((row) => row.method === 'rpcCallStats')?.calls).toBe(1);
  });

  it('starts with just TOTAL', async () => {
    const t = await serve();
    expect((await t.call('rpcCallStats')).result).toEqual([
      { method: 'TOTAL', calls: 0, seconds: '0.000000', secs_average: '0.000000' },
    ]);
  });

  it('counts failing calls too', async () => {
    const t = await serve();
    await t.call('getBlockInfo', { block: 'x' });
    await t.call('getBlockCount'); // NOT_AVAILABLE
    const rows = t.server.callStats().map((row) => [row.method, row.calls]);
    expect(rows).toEqual([
      ['getBlockCount', 1],
      ['getBlockInfo', 1],
      ['TOTAL', 2],
    ]);
  });

  it('answers nodeUptime with whole seconds since start', async () => {
    const t = await serve();
    const uptime = (await t.call('nodeUptime')).result;
    expect(Number.isInteger(uptime)).toBe(true);
    expect(uptime).toBeGreaterThanOrEqual(0);
    expect(uptime).toBeLessThanOrEqual(t.server.uptimeSeconds());
  });

  it('lets handlers override the built-ins', async () => {
    const t = await serve({ handlers: { nodeUptime: () => 12345 } });
    expect((await t.call('nodeUptime')).result).toBe(12345);
  });
});

describe('spec quirks', () => {
  it('nests the getNodePart result with the id as an integer', async () => {
    const part = { nodeIndex: 1, penalty: 0, code: 'abc' };
    const t = await serve({ handlers: { getNodePart: () => part as never } });
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"getNodePart","params":{"wallet":"${WALLET}"},"id":7}`,
    );
    expect(reply.json).toEqual({
      jsonrpc: '2.0',
      id: '7',
      result: { result: part, id: 7, jsonrpc: '2.0' },
    });
    expect((await t.call('getNodePart', { wallet: WALLET }, '12')).result).toEqual({
      result: part,
      id: 12,
      jsonrpc: '2.0',
    });
    // An id that is no integer would make the inner object wrong: refused instead.
    expect((await t.call('getNodePart', { wallet: WALLET }, 'x1')).error).toMatchObject({
      code: -32600,
      data: { reason: 'INVALID_REQUEST' },
    });
  });

  it('does not nest an error of getNodePart', async () => {
    const t = await serve();
    const response = await t.call('getNodePart', { wallet: WALLET });
    expect(response.error).toMatchObject({ code: -32001 });
    expect(response.result).toBeUndefined();
  });

  it('reads a repeated mine key of blockchainStart as mine, then share', async () => {
    let received: unknown;
    const t = await serve({
      handlers: {
        blockchainStart: (params) => {
          received = params;
          return {} as never;
        },
      },
    });
    const mine = walletOf('b');
    const share = walletOf('c');
    const params = `{"code":"N1","wallet":"${WALLET}","passphrase":"pw","mine":"${mine}","minepass":"mp","mine":"${share}","nodes":"10.0.0.1;10.0.0.2"}`;
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"blockchainStart","params":${params},"id":1}`,
    );
    expect(reply.json).toMatchObject({ result: {} });
    expect(received).toEqual({
      code: 'N1',
      wallet: WALLET,
      passphrase: 'pw',
      mine,
      minepass: 'mp',
      share,
      nodes: '10.0.0.1;10.0.0.2',
    });

    // The same inside a batch, at its position.
    const batch = `[{"jsonrpc":"2.0","method":"getBlockCount","id":0},{"jsonrpc":"2.0","method":"blockchainStart","params":${params.replace('N1', 'N2')},"id":1}]`;
    received = undefined;
    await t.http(batch);
    expect(received).toMatchObject({ code: 'N2', mine, share });
  });

  it('takes blockchainStart with distinct mine and share keys', async () => {
    let received: unknown;
    const t = await serve({
      handlers: {
        blockchainStart: (params) => {
          received = params;
          return {} as never;
        },
      },
    });
    const mine = walletOf('b');
    const share = walletOf('c');
    const params = {
      code: 'N1',
      wallet: WALLET,
      passphrase: 'pw',
      mine,
      minepass: 'mp',
      share,
      nodes: '',
    };
    await t.call('blockchainStart', params);
    expect(received).toEqual(params);
  });

  it.each([['holderToken'], ['infoToken']])('%s takes wallet beside method', async (method) => {
    const seen: string[] = [];
    const record = ({ wallet }: { wallet: string }) => {
      seen.push(wallet);
      return {} as never;
    };
    const t = await serve({ handlers: { holderToken: record, infoToken: record } });
    const token = walletOf('d');
    const beside = await t.http(
      `{"jsonrpc":"2.0","method":"${method}","wallet":"${token}","id":1}`,
    );
    expect(beside.json).toMatchObject({ result: {} });
    await t.call(method, { wallet: WALLET });
    // In both places: the same value is taken, different ones are refused naming wallet (issue 42).
    await t.http(
      `{"jsonrpc":"2.0","method":"${method}","wallet":"${token}","params":{"wallet":"${token}"},"id":2}`,
    );
    const both = await t.http(
      `{"jsonrpc":"2.0","method":"${method}","wallet":"${token}","params":{"wallet":"${WALLET}"},"id":3}`,
    );
    expect(both.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
    expect(seen).toEqual([token, WALLET, token]);
  });

  it('does not take params beside method for other methods', async () => {
    const t = await serve({ handlers: { getWalletInfo: () => ({}) as never } });
    const reply = await t.http(
      `{"jsonrpc":"2.0","method":"getWalletInfo","wallet":"${WALLET}","id":1}`,
    );
    expect(reply.json).toMatchObject({ error: { code: -32602, data: { param: 'wallet' } } });
  });
});

describe('key-material methods', () => {
  const keyHandlers = {
    dumpPrivateKey: () => ({ status: true, priv: 'ca022000' }),
    getWalletInfo: () => ({}) as never,
  };
  const params = { wallet: WALLET, passphrase: 'pw' };
  const auth = { user: 'u', password: 'p' };
  const authorization = basic('u', 'p');

  it('are served on loopback', async () => {
    const t = await serve({ handlers: keyHandlers });
    expect((await t.call('dumpPrivateKey', params)).result).toEqual({
      status: true,
      priv: 'ca022000',
    });
  });

  it('are refused off loopback unless allowKeys', async () => {
    const t = await serve({ handlers: keyHandlers, auth, isLoopbackAddress: () => false });
    const reply = await t.http(
      JSON.stringify({ jsonrpc: '2.0', method: 'dumpPrivateKey', params, id: 1 }),
      { headers: { authorization } },
    );
    expect(reply.json).toMatchObject({
      id: '1',
      error: { code: -32003, data: { reason: 'KEYS_NOT_ALLOWED' } },
    });
    // Other methods still work.
    const other = await t.http(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'getWalletInfo',
        params: { wallet: WALLET },
        id: 2,
      }),
      { headers: { authorization } },
    );
    expect(other.json).toMatchObject({ result: {} });
  });

  it('are served off loopback with allowKeys', async () => {
    const t = await serve({
      handlers: keyHandlers,
      auth,
      allowKeys: true,
      isLoopbackAddress: () => false,
    });
    const reply = await t.http(
      JSON.stringify({ jsonrpc: '2.0', method: 'dumpPrivateKey', params, id: 1 }),
      { headers: { authorization } },
    );
    expect(reply.json).toMatchObject({ result: { status: true } });
  });

  it('tell handlers whether the caller is on loopback', async () => {
    const contexts: unknown[] = [];
    const t = await serve({
      handlers: {
        getBlockCount: (_params, context) => {
          contexts.push(context);
          return 1;
        },
      },
    });
    await t.call('getBlockCount');
    expect(contexts).toEqual([{ remoteAddress: '127.0.0.1', loopback: true }]);
  });
});
