import type { WalletInfo } from '@chain/spec';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { resultCacheKey } from './result-cache.js';
import { startTestServer, type TestServer, walletOf } from './test-server.js';

const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

const A = walletOf('a');
/** Params of one method as sent: absent, named or positional, strings that may hold separators. */
const scalarArbitrary = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', ':', '\u0000', '=', '1', '[', '{') }),
  fc.constantFrom(0, -0, 1, 1.5, 1e21),
  fc.boolean(),
);
const paramsArbitrary = fc.oneof(
  fc.constant(undefined),
  fc.record({ a: scalarArbitrary, b: scalarArbitrary, 0: scalarArbitrary }, { requiredKeys: [] }),
  fc.array(scalarArbitrary, { maxLength: 3 }),
);
/** Equal params as JSON has them, telling -0 from 0 (coercion may refuse -0). */
function sameParams(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown) =>
    JSON.stringify(v, (_, x) => (Object.is(x, -0) ? '-0 number' : x)) +
    (Array.isArray(v) ? 'array' : typeof v);
  return canonical(a) === canonical(b);
}
const B = walletOf('b');

/** A server whose getWalletInfo counts its runs and answers the balance of the current state. */
async function serveWallets(options: { entries?: number; async?: boolean } = {}) {
  const state = { version: 1, balance: 10, runs: 0, moveWhileRunning: false };
  const info = (wallet: string): WalletInfo => {
    state.runs++;
    if (wallet === B && state.balance < 0) throw new Error('boom');
    return {
      account: 1,
      updated_active: 0,
      updated_passive: 0,
      n_operation: 0,
      balance: String(state.balance),
      wallet,
      volume_lock: '0',
      volume_timelock: '0',
      state: 'normal wallet',
    };
  };
  const t = await startTestServer({
    stateVersion: () => state.version,
    ...(options.entries === undefined ? {} : { resultCacheEntries: options.entries }),
    handlers: {
      getWalletInfo: options.async
        ? async ({ wallet }) => {
            const answer = info(wallet);
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (state.moveWhileRunning) state.version++;
            return answer;
          }
        : ({ wallet }) => info(wallet),
    },
  });
  running.push(t);
  return { t, state };
}

function balanceOf(response: Record<string, unknown>): string {
  return (response.result as WalletInfo).balance;
}

describe('result cache of cacheable methods', () => {
  it('answers repeats without running the handler until the state version moves', async () => {
    const { t, state } = await serveWallets();
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }))).toBe('10');
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }, 7))).toBe('10');
    expect(state.runs).toBe(1);
    state.balance = 20; // changed without a version bump: still the cached answer
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }))).toBe('10');
    state.version++;
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }))).toBe('20');
    expect(state.runs).toBe(2);
    // other params are another entry; the same wallet in another case is the same coerced param
    await t.call('getWalletInfo', { wallet: B });
    expect(state.runs).toBe(3);
  });

  it('gives each cached reply its own id, in single calls and batches, counted in rpcCallStats', async () => {
    const { t, state } = await serveWallets();
    await t.call('getWalletInfo', { wallet: A }, 'first');
    const reply = await t.http(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet: A }, id: 5 },
        { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet: A }, id: 'x"y' },
        { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet: A } },
        { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet: 'nope' }, id: 6 },
        { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet: A }, id: null },
      ]),
    );
    const replies = reply.json as Array<Record<string, unknown>>;
    expect(replies.map((r) => r.id)).toEqual(['5', 'x"y', '6', null]);
    expect(replies[0]).toEqual({ jsonrpc: '2.0', id: '5', result: replies[1]!.result });
    expect((replies[0]!.result as WalletInfo).wallet).toBe(A);
    expect(replies[2]!.error).toMatchObject({ code: -32602 });
    expect(replies[3]).toMatchObject({ id: null, result: { wallet: A } });
    expect(state.runs).toBe(2); // the first call, and the notification (never cached)
    const stats = (await t.call('rpcCallStats')).result as Array<{ method: string; calls: number }>;
    expect(stats.find((row) => row.method === 'getWalletInfo')?.calls).toBe(6);
  });

  it('never caches errors, and drops a result computed across a version change', async () => {
    const { t, state } = await serveWallets({ async: true });
    state.balance = -1;
    expect((await t.call('getWalletInfo', { wallet: B })).error).toMatchObject({ code: -32603 });
    expect((await t.call('getWalletInfo', { wallet: B })).error).toMatchObject({ code: -32603 });
    expect(state.runs).toBe(2);
    state.moveWhileRunning = true;
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }))).toBe('-1');
    state.moveWhileRunning = false;
    state.balance = 3;
    expect(balanceOf(await t.call('getWalletInfo', { wallet: A }))).toBe('3');
    expect(state.runs).toBe(4);
  });

  it('never answers a request that would be refused from the cache', async () => {
    const { t, state } = await serveWallets();
    await t.call('getWalletInfo', { wallet: A });
    expect((await t.call('getWalletInfo', [A])).result).toMatchObject({ wallet: A });
    expect((await t.call('getWalletInfo', { wallet: A, extra: 1 })).error).toMatchObject({
      code: -32602,
    });
    expect((await t.call('getWalletInfo', { 0: A })).error).toMatchObject({ code: -32602 });
    expect((await t.call('getWalletInfo')).error).toMatchObject({ code: -32602 });
    expect(state.runs).toBe(2);
  });

  it('stays bounded and can be turned off', async () => {
    const bounded = await serveWallets({ entries: 1 });
    await bounded.t.call('getWalletInfo', { wallet: A });
    await bounded.t.call('getWalletInfo', { wallet: B }); // full: emptied, then B kept
    await bounded.t.call('getWalletInfo', { wallet: A });
    expect(bounded.state.runs).toBe(3);
    const off = await serveWallets({ entries: 0 });
    await off.t.call('getWalletInfo', { wallet: A });
    await off.t.call('getWalletInfo', { wallet: A });
    expect(off.state.runs).toBe(2);
  });
});

describe('resultCacheKey', () => {
  it('tells apart every two different scalar params of a method', () => {
    fc.assert(
      fc.property(paramsArbitrary, paramsArbitrary, (a, b) => {
        const same = resultCacheKey('m', a) === resultCacheKey('m', b);
        expect(same).toBe(sameParams(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves params that are not scalars uncached', () => {
    expect(resultCacheKey('m', { a: 1n })).toBeUndefined();
    expect(resultCacheKey('m', { a: ['x'] })).toBeUndefined();
    expect(resultCacheKey('m', { a: null })).toBeUndefined();
    expect(resultCacheKey('m', null)).toBeUndefined();
  });
});
