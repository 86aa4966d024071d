import { afterEach, describe, expect, it } from 'vitest';
import type { ByteReader } from '../../codec/byte-reader';
import { ByteWriter } from '../../codec/byte-writer';
import { createRegistry } from '../../operation/ledger-registry';
import type { OperationType, StateSpace } from '../../operation/registry';
import { devWallet, openTempChain } from '../../testing/temp-chain';

/** A counter per key, written by a plug-in operation type: what `stateEntry` reads back. */
interface Counter {
  count: number;
}

const counters: StateSpace<Counter> = {
  name: 'counters',
  encode: (v) => new ByteWriter().u32(v.count).finish(),
  decode: (bytes) => ({ count: new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) }),
  clone: (v) => ({ ...v }),
};

const increment: OperationType<{ key: string }> = {
  optype: 210,
  subtype: 0,
  name: 'increment',
  encodeBody: (b) => new ByteWriter().string16(b.key).finish(),
  decodeBody: (r: ByteReader) => ({ key: r.string16() }),
  apply(ctx, op) {
    const current = ctx.get(counters, op.body.key) ?? { count: 0 };
    ctx.put(counters, op.body.key, { count: current.count + 1 });
  },
  present: () => ({ amount: 0n, senders: [], receivers: [], optxt: 'Increment' }),
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('stateEntry', () => {
  it('reads committed entries, or pending ones on request, as copies', async () => {
    const registry = createRegistry();
    registry.registerSpace(counters);
    registry.register(increment);
    const t = await openTempChain({ registry });
    cleanups.push(t.cleanup);
    const { chain } = t;
    const submit = () =>
      chain.signAndSubmit({
        optype: 210,
        signer: devWallet.address,
        privateKey: devWallet.privateKey,
        body: { key: 'a' },
      });

    await submit();
    expect(chain.stateEntry(counters, 'a')).toBeUndefined();
    expect(chain.stateEntry(counters, 'a', { pending: true })).toEqual({ count: 1 });
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.stateEntry(counters, 'a')).toEqual({ count: 1 });

    await submit();
    expect(chain.stateEntry(counters, 'a')).toEqual({ count: 1 });
    expect(chain.stateEntry(counters, 'a', { pending: true })).toEqual({ count: 2 });

    // A copy: changing it changes nothing in the chain.
    chain.stateEntry(counters, 'a')!.count = 99;
    expect(chain.stateEntry(counters, 'a')).toEqual({ count: 1 });
  });

  it('refuses a space that the chain does not know', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    expect(() => t.chain.stateEntry(counters, 'a')).toThrow(
      expect.objectContaining({ reason: 'UNREGISTERED_SPACE' }),
    );
  });
});
