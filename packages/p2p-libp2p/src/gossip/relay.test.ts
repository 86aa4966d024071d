import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import type { TestPeer } from '../testing/temp-network';
import { sendFromDev, waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

const SENT = 24;
/** Longer than a 5 ms batch: one operation per message from the submitter before batching per hop. */
const SPACING_MS = 15;
/** No rebroadcast of what is still pending: it would send the operations again. */
const QUIET = { rebroadcastIntervalMs: 3_600_000 };

/** Operations messages `at` received from `from`'s IP (nodeIPStats). */
function messagesFrom(at: TestPeer, from: TestPeer): number {
  const kinds = at.p2p.ipStats(from.host)[0]?.kinds;
  return kinds?.get('NewOperations')?.get('Autoreceive')?.count ?? 0;
}

/** Counts the operations `node` puts in its gossip messages (the chain's encodeRaw). */
function countRelayed(node: TestPeer): { ops: number } {
  const counted = { ops: 0 };
  const encode = node.chain.encodeRaw.bind(node.chain);
  node.chain.encodeRaw = (ops) => {
    counted.ops += ops.length;
    return encode(ops);
  };
  return counted;
}

describe('operations relayed per hop', () => {
  it('reach a node two hops away in fewer messages than operations, each sent once per node', async () => {
    const a = await peer('127.0.0.121', QUIET);
    await a.p2p.start();
    const b = await peer('127.0.0.122', { ...QUIET, peers: [a.address()] });
    await b.p2p.start();
    const c = await peer('127.0.0.123', { ...QUIET, peers: [b.address()] });
    await c.p2p.start();
    await waitUntil('the line a-b-c', () => b.p2p.connections().length === 2);
    await waitUntil('c to connect', () => c.p2p.connections().length === 1);
    expect(a.p2p.connections().map((conn) => conn.ip)).toEqual([b.host]);
    const relayed = [a, b, c].map(countRelayed);

    // One at a time, further apart than the submitter's old 5 ms batch.
    for (let i = 0; i < SENT; i++) {
      await sendFromDev(a.chain, BigInt(i + 1));
      await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
    }

    await waitUntil('c to take them through b', () => c.chain.pendingCount() === SENT);
    await waitUntil('c to relay them', () => relayed[2]!.ops === SENT);
    // Time for one more batch from each node, were any to send again what it had already.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(c.p2p.connections().map((conn) => conn.ip)).toEqual([b.host]);
    // b batched what it admitted: fewer messages to c than operations (gossipsub forwarded one
    // message per message a sent, one operation each).
    expect(messagesFrom(c, b)).toBeGreaterThan(0);
    expect(messagesFrom(c, b)).toBeLessThan(SENT);
    // Each node put each operation in its messages once: what came back (c's relay to b, b's to a)
    // was known already and went no further.
    expect(relayed.map((count) => count.ops)).toEqual([SENT, SENT, SENT]);
    expect(b.chain.pendingCount()).toBe(SENT);
    expect(a.chain.pendingCount()).toBe(SENT);
  });
});
