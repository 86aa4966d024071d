import { describe, expect, it } from 'vitest';
import type { MessageKind } from '../stats/traffic';
import { useP2PFixture } from '../testing/p2p-fixture';
import {
  growChain,
  sameHead,
  sendFromDev,
  type TestPeer,
  type TestPeerOptions,
  waitUntil,
} from '../testing/temp-network';

const { peer } = useP2PFixture();

/** No rebroadcast: an operation that reaches a peer here came by gossip. */
const OPTIONS: TestPeerOptions = { peers: [], rebroadcastIntervalMs: 600_000 };

async function startedPair(ipA: string, ipB: string): Promise<[TestPeer, TestPeer]> {
  const a = await peer(ipA, OPTIONS);
  const b = await peer(ipB, OPTIONS);
  await a.p2p.start();
  await b.p2p.start();
  return [a, b];
}

/** Messages of `kind` that `node` received from `from` (traffic statistics of its IP). */
function received(node: TestPeer, from: TestPeer, kind: MessageKind): number {
  return node.p2p.ipStats(from.host)[0]?.kinds.get(kind)?.get('Autoreceive')?.count ?? 0;
}

/** Each node lists one open connection, the same one seen from both ends, its hellos done. */
function oneConnection(a: TestPeer, b: TestPeer): boolean {
  const fromA = a.p2p.connections();
  const fromB = b.p2p.connections();
  return (
    fromA.length === 1 &&
    fromB.length === 1 &&
    fromA[0]!.appver === 'test' &&
    fromB[0]!.appver === 'test' &&
    fromA[0]!.server !== fromB[0]!.server
  );
}

/**
 * Waits until a and b keep one connection between them, and checks it is the one dialled by the
 * lower peer id (the tie-break both ends apply to a simultaneous dial).
 */
async function settlesOnOneConnection(a: TestPeer, b: TestPeer): Promise<void> {
  await waitUntil('one connection between a and b', () => oneConnection(a, b)).catch(() => {
    // Say what there is instead.
    expect(a.p2p.connections()).toHaveLength(1);
    expect(b.p2p.connections()).toHaveLength(1);
  });
  const aIsLower = a.p2p.peerId! < b.p2p.peerId!;
  expect(a.p2p.connections()[0]).toMatchObject({ server: aIsLower, peerId: b.p2p.peerId });
  expect(b.p2p.connections()[0]).toMatchObject({ server: !aIsLower, peerId: a.p2p.peerId });
}

async function connected(a: TestPeer, b: TestPeer): Promise<void> {
  await waitUntil('a and b to connect', () => oneConnection(a, b));
}

/** Blocks and operations gossiped both ways reach the other node. */
async function gossipsBothWays(a: TestPeer, b: TestPeer): Promise<void> {
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    const blocks = received(to, from, 'NewBlock');
    await growChain(from.chain, 1);
    await waitUntil('the block to be gossiped', () => received(to, from, 'NewBlock') > blocks);
    await waitUntil('the chains to agree', () => sameHead(from, to));
    const op = await sendFromDev(from.chain, 3n);
    await waitUntil('the operation to be gossiped', () =>
      to.chain.pendingOperations().some((pending) => pending.ophash === op.ophash),
    );
  }
}

describe('one connection per peer', () => {
  it('two nodes that dial each other at the same moment keep one connection, greet once and gossip over it', async () => {
    const [a, b] = await startedPair('127.0.0.51', '127.0.0.52');
    a.p2p.addPeers(b.address());
    b.p2p.addPeers(a.address());

    await settlesOnOneConnection(a, b);
    await gossipsBothWays(a, b);
    // Counted once, greeted once (one mempool exchange each way), still one connection.
    for (const [node, other] of [
      [a, b],
      [b, a],
    ] as const) {
      expect(node.p2p.netStats()).toMatchObject({ active: 1, total: 1 });
      expect(node.p2p.netStats().tclients + node.p2p.netStats().tservers).toBe(1);
      expect(received(node, other, 'Mempool')).toBe(1);
      expect(node.p2p.connections()).toHaveLength(1);
    }
  });

  it('after addBlacklist and clearBlacklist, dialling each other again ends with one connection', async () => {
    const [a, b] = await startedPair('127.0.0.53', '127.0.0.54');
    b.p2p.addPeers(a.address());
    await connected(a, b);
    a.p2p.addBlacklist(b.host, 'testing');
    await waitUntil(
      'b to be cut off',
      () => a.p2p.connections().length === 0 && b.p2p.connections().length === 0,
    );

    expect(a.p2p.clearBlacklist()).toBe(1);
    a.p2p.addPeers(b.address());
    b.p2p.addPeers(a.address());

    await settlesOnOneConnection(a, b);
    await gossipsBothWays(a, b);
    for (const [node, other] of [
      [a, b],
      [b, a],
    ] as const) {
      // Two connections in all: the one before the ban and the one after.
      expect(node.p2p.netStats()).toMatchObject({ active: 1, total: 2 });
      expect(received(node, other, 'Mempool')).toBe(2);
      expect(node.p2p.connections()).toHaveLength(1);
    }
    expect(a.p2p.blacklist()).toEqual([]);
    expect(b.p2p.blacklist()).toEqual([]);
  });
});
