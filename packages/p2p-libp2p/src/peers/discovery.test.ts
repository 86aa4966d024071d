import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import type { TestPeer } from '../testing/temp-network';
import { waitUntil } from '../testing/temp-network';
import { outboundLimit } from './connection-manager';

const { peer } = useP2PFixture();

const NODES = 8;

/** Distinct peers of a node (a duplicate connection counted once). */
function peerCount(node: TestPeer): number {
  return new Set(node.p2p.connections().map((c) => c.peerId)).size;
}

describe('discovery', () => {
  it('from one bootstrap address each, 8 nodes find each other by peer exchange', async () => {
    const options = { discovery: true, discoveryIntervalMs: 1000, outboundPeers: 4 };
    const bootstrap = await peer('127.0.0.60', options);
    await bootstrap.p2p.start();
    const nodes: TestPeer[] = [bootstrap];
    for (let i = 1; i < NODES; i++) {
      const node = await peer(`127.0.0.${60 + i}`, { ...options, peers: [bootstrap.address()] });
      await node.p2p.start();
      nodes.push(node);
    }
    await waitUntil(
      'every node to reach 4 peers',
      () => nodes.every((node) => peerCount(node) >= 4),
      40_000,
    );
    for (const node of nodes.slice(1)) {
      // It learnt servers it was never given, and dialled no more than its outbound target (and
      // the servers it lost and reclaims beyond it: a connection closed while the eight started).
      expect(node.p2p.knownServers().length).toBeGreaterThan(1);
      const dialled = new Set(
        node.p2p
          .connections()
          .filter((c) => c.server)
          .map((c) => c.peerId),
      );
      expect(dialled.size).toBeLessThanOrEqual(outboundLimit(options.outboundPeers));
    }
    // Opening eight chains and hosts alone takes seconds on a loaded CI machine.
  }, 90_000);

  it('off: a node given one address stays with that one', async () => {
    const bootstrap = await peer('127.0.0.70');
    await bootstrap.p2p.start();
    const a = await peer('127.0.0.71', { peers: [bootstrap.address()] });
    await a.p2p.start();
    const b = await peer('127.0.0.72', { peers: [bootstrap.address()] });
    await b.p2p.start();
    await waitUntil('both to connect', () => peerCount(bootstrap) === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(a.p2p.connections().map((c) => c.ip)).toEqual([bootstrap.host]);
    expect(a.p2p.knownServers().map((s) => s.ip)).toEqual([bootstrap.host]);
  });
});
