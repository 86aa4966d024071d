import { describe, expect, it } from 'vitest';
import { createDispatcher, type DispatcherOptions } from './dispatcher.js';
import type { CallContext } from './options.js';
import { walletOf } from './test-server.js';

const LOCAL: CallContext = { remoteAddress: '127.0.0.1', loopback: true };
const REMOTE: CallContext = { remoteAddress: '203.0.113.7', loopback: false };
const WALLET = walletOf('a');

function dispatcherWith(options: Partial<DispatcherOptions> = {}) {
  return createDispatcher({
    handlers: { getBlockCount: () => 7 },
    maxBatch: 3,
    keysAllowed: (context) => context.loopback,
    resultCacheEntries: 0,
    ...options,
  });
}

/** A reply the dispatcher gave synchronously, parsed. */
function syncReply(reply: unknown): unknown {
  expect(typeof reply).toBe('string');
  return JSON.parse(reply as string);
}

describe('the dispatcher, without any transport', () => {
  it('answers a call from synchronous handlers synchronously, as reply text', () => {
    const reply = dispatcherWith().handle(
      '{"jsonrpc":"2.0","method":"getBlockCount","id":1}',
      LOCAL,
    );
    expect(syncReply(reply)).toEqual({ jsonrpc: '2.0', id: '1', result: 7 });
  });

  it('answers a batch synchronously, notifications left out, and nothing for notifications only', () => {
    const d = dispatcherWith();
    const batch = d.handle(
      '[{"jsonrpc":"2.0","method":"getBlockCount","id":"a"},{"jsonrpc":"2.0","method":"getBlockCount"},{"jsonrpc":"2.0","method":"nope","id":2}]',
      LOCAL,
    );
    expect(syncReply(batch)).toMatchObject([
      { id: 'a', result: 7 },
      { id: '2', error: { code: -32601 } },
    ]);
    expect(d.handle('{"jsonrpc":"2.0","method":"getBlockCount"}', LOCAL)).toBeUndefined();
    expect(d.handle('[{"jsonrpc":"2.0","method":"getBlockCount"}]', LOCAL)).toBeUndefined();
  });

  it('answers parse errors, empty and too large batches with one error', () => {
    const d = dispatcherWith();
    expect(syncReply(d.handle('{', LOCAL))).toMatchObject({ id: null, error: { code: -32700 } });
    expect(syncReply(d.handle('[]', LOCAL))).toMatchObject({ error: { code: -32600 } });
    const four = JSON.stringify(
      Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', method: 'getBlockCount', id: i })),
    );
    expect(syncReply(d.handle(four, LOCAL))).toMatchObject({
      error: { code: -32600, message: 'batch too large (4 > 3)' },
    });
  });

  it('returns a promise of the reply when a handler answers later, and passes the context', async () => {
    const seen: CallContext[] = [];
    const d = dispatcherWith({
      handlers: {
        getPendingCount: async (_params, context) => {
          seen.push(context);
          return 3;
        },
      },
    });
    const reply = d.handle('{"jsonrpc":"2.0","method":"getPendingCount","id":5}', REMOTE);
    expect(reply).toBeInstanceOf(Promise);
    expect(JSON.parse((await reply) as string)).toEqual({ jsonrpc: '2.0', id: '5', result: 3 });
    expect(seen).toEqual([REMOTE]);
  });

  it('asks the access rule before running a key-material method, with the caller', () => {
    const asked: CallContext[] = [];
    const d = dispatcherWith({
      handlers: { dumpPrivateKey: () => ({ private: 'aa' }) as never },
      keysAllowed: (context) => {
        asked.push(context);
        return context.loopback;
      },
    });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'dumpPrivateKey',
      params: { wallet: WALLET, passphrase: 'pw' },
      id: 1,
    });
    expect(syncReply(d.handle(body, REMOTE))).toMatchObject({
      error: { code: -32003, data: { reason: 'KEYS_NOT_ALLOWED' } },
    });
    expect(syncReply(d.handle(body, LOCAL))).toMatchObject({ result: { private: 'aa' } });
    expect(asked).toEqual([REMOTE, LOCAL]);
  });

  it('counts the calls it answered', () => {
    const d = dispatcherWith();
    d.handle('{"jsonrpc":"2.0","method":"getBlockCount","id":1}', LOCAL);
    d.handle('{"jsonrpc":"2.0","method":"getBlockCount","id":2}', REMOTE);
    expect(d.callStats().map((row) => [row.method, row.calls])).toEqual([
      ['getBlockCount', 2],
      ['TOTAL', 2],
    ]);
  });
});
