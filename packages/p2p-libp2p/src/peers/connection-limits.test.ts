import type { Libp2p } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { DEFAULT_P2P_OPTIONS } from '../p2p-options';
import { dialPeer } from '../testing/hostile-peer';
import { keepsSyncing, useP2PFixture } from '../testing/p2p-fixture';
import { heldCount, startSocketFlood } from '../testing/socket-flood';
import { growChain, sameHead, waitUntil } from '../testing/temp-network';

const { peer, bareHost, victimWithHonestPeer } = useP2PFixture();

/**
 * Connection caps against a hostile process: raw sockets from a child process (they never complete
 * a libp2p handshake, so they hold handshake slots) and bare libp2p hosts (they complete it and
 * hold open connections).
 */
describe('connection caps', () => {
  it('refuses inbound connections from one IP beyond maxInboundPerIp (default 4), counting those still in their handshake', async () => {
    expect(DEFAULT_P2P_OPTIONS.maxInboundPerIp).toBe(4);
    // The per-second threshold is lifted so that only the per-IP cap refuses, and the handshake
    // timeout is beyond the hold so that the four admitted sockets stay in their handshake.
    const victim = await peer('127.0.0.21', {
      inboundConnectionsPerSecond: 1000,
      handshakeTimeoutMs: 30_000,
    });
    await growChain(victim.chain, 3);
    await victim.p2p.start();

    const flood = startSocketFlood({
      from: ['127.0.0.1'],
      host: victim.host,
      port: victim.p2p.listenPort,
      count: 12,
      holdMs: 4000,
    });
    await flood.ready;
    // Meanwhile an honest node (another IP) connects, syncs and follows.
    const honest = await peer('127.0.0.22', { peers: [victim.address()] });
    await honest.p2p.start();
    await waitUntil('the honest peer to sync', () => sameHead(victim, honest));
    await keepsSyncing(victim, honest);

    const fates = await flood.done;
    expect(heldCount(fates)).toBe(4);
    // The eight refused were closed at once, not after a handshake timeout.
    for (const fate of fates.filter((f) => !f.held)) expect(fate.closedAfterMs).toBeLessThan(2000);

    // Closed sockets free their places: the same IP gets its four again.
    const again = startSocketFlood({
      from: ['127.0.0.1'],
      host: victim.host,
      port: victim.p2p.listenPort,
      count: 6,
      holdMs: 800,
    });
    expect(heldCount(await again.done)).toBe(4);
    expect(victim.p2p.connections().map((c) => c.ip)).toEqual([honest.host]);
  });

  it('counts open connections against maxInboundPerIp too, and frees the place when one closes', async () => {
    const victim = await peer('127.0.0.27', { inboundConnectionsPerSecond: 1000 });
    await victim.p2p.start();
    const hosts: Libp2p[] = [];
    for (let i = 0; i < 5; i++) hosts.push(await bareHost('127.0.0.1'));
    const dial = (host: Libp2p) =>
      dialPeer(host, victim).then(
        () => true,
        () => false,
      );
    const first = [];
    for (const host of hosts.slice(0, 4)) first.push(await dial(host));
    expect(first).toEqual([true, true, true, true]);
    await waitUntil('the victim to count them', () => victim.p2p.connections().length === 4);
    expect(await dial(hosts[4]!)).toBe(false);
    await hosts[0]!.stop();
    await waitUntil('the victim to see one go', () => victim.p2p.connections().length === 3);
    expect(await dial(hosts[4]!)).toBe(true);
  });

  it('holds at most maxConnections open: hosts beyond are refused, the honest peer keeps syncing', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.23', '127.0.0.24', {
      victimOptions: { maxConnections: 4, maxInboundPerIp: 100, inboundConnectionsPerSecond: 1000 },
    });

    // Six identities from one IP dial in turn; three places are left.
    const results: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      const accepted = await dialPeer(await bareHost('127.0.0.1'), victim).then(
        () => true,
        () => false,
      );
      results.push(accepted);
      if (accepted) {
        await waitUntil('the victim to count it', () => victim.p2p.connections().length === i + 2);
      }
    }
    expect(results).toEqual([true, true, true, false, false, false]);
    expect(victim.p2p.connections()).toHaveLength(4);
    await keepsSyncing(victim, honest);
  });

  it('accepts at most inboundConnectionsPerSecond (default 5) new connections a second from one IP', async () => {
    expect(DEFAULT_P2P_OPTIONS.inboundConnectionsPerSecond).toBe(5);
    const victim = await peer('127.0.0.25', { maxInboundPerIp: 100, maxPendingInbound: 100 });
    await victim.p2p.start();
    const target = { host: victim.host, port: victim.p2p.listenPort };

    const burst = await startSocketFlood({
      ...target,
      from: ['127.0.0.1'],
      count: 20,
      holdMs: 1000,
    }).done;
    // libp2p counts in one-second windows from an IP's first connection: a burst that straddles
    // two windows on a busy machine may get a second five.
    const held = heldCount(burst);
    expect(held).toBeGreaterThanOrEqual(5);
    expect(held).toBeLessThanOrEqual(10);

    // A slower peer (3 a second) from the same IP is not refused.
    const paced = await startSocketFlood({
      ...target,
      from: ['127.0.0.1'],
      count: 3,
      intervalMs: 350,
      holdMs: 500,
    }).done;
    expect(heldCount(paced)).toBe(3);
  });

  it('keeps at most maxPendingInbound connections in their handshake, from all IPs together', async () => {
    const victim = await peer('127.0.0.26', {
      maxPendingInbound: 5,
      maxInboundPerIp: 100,
      inboundConnectionsPerSecond: 1000,
    });
    await victim.p2p.start();
    const fates = await startSocketFlood({
      from: ['127.0.0.1', '127.0.0.2', '127.0.0.3'],
      host: victim.host,
      port: victim.p2p.listenPort,
      count: 12,
      holdMs: 1500,
    }).done;
    expect(heldCount(fates)).toBe(5);
  });
});
