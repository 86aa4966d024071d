import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import type { TestPeer } from '../testing/temp-network';
import { waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

/**
 * A TCP forwarder on `ip` to `target`, dialling out from `fromIp` (as the lab's relay does: the
 * target sees the dialler by its own IP): a link that the test can cut, both ends seeing it close.
 */
interface Link {
  address: string;
  cut(): Promise<void>;
}

const links: Link[] = [];
afterEach(async () => {
  for (const link of links.splice(0)) await link.cut();
});

async function openLink(ip: string, target: TestPeer, fromIp: string): Promise<Link> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect({
      host: target.host,
      port: target.p2p.listenPort,
      localAddress: fromIp,
    });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, ip, resolve));
  let open = true;
  const link: Link = {
    address: `${ip}:${(server.address() as net.AddressInfo).port}`,
    async cut() {
      if (!open) return;
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  links.push(link);
  return link;
}

/** `node` has a connection to `other` that `node` dialled (server: the other end listens). */
function dialled(node: TestPeer, other: TestPeer): boolean {
  return node.p2p.connections().some((c) => c.ip === other.host && c.server);
}

function connected(node: TestPeer, other: TestPeer): boolean {
  return node.p2p.connections().some((c) => c.ip === other.host);
}

describe('lost peers are reclaimed', () => {
  it('by the end that was dialled too, beyond its outbound target, when the dialling end cannot come back', async () => {
    // A keeps one connection it dialled (to C): its target is met, it dials nobody else unless
    // it reclaims a lost peer.
    const c = await peer('127.0.0.110');
    await c.p2p.start();
    const a = await peer('127.0.0.111', {
      discovery: true,
      outboundPeers: 1,
      discoveryIntervalMs: 60_000,
      peers: [c.address()],
    });
    await a.p2p.start();
    await waitUntil('A to dial C', () => dialled(a, c));
    // B dials A through a link that will be cut for good: B's own reclaim goes through it and
    // fails; only A, at B's listening port (its hello's), can bring the two back together.
    const b = await peer('127.0.0.112');
    const link = await openLink('127.0.0.113', a, b.host);
    b.p2p.addPeers(link.address);
    await b.p2p.start();
    // Greeted: A learnt B's listening port from its hello.
    await waitUntil('A to greet B through the link', () =>
      a.p2p.knownServers().some((s) => s.ip === b.host && s.port === b.p2p.listenPort),
    );
    expect(dialled(a, b)).toBe(false);

    await link.cut();
    await waitUntil('A to dial B at its listening port', () => dialled(a, b), 20_000);
    await waitUntil('B to see A', () => connected(b, a));
    // C was kept: the reclaimed peer came beyond the target, not in place of C.
    expect(dialled(a, c)).toBe(true);
  }, 40_000);

  it('dialled again once it is back, after failing while it was away', async () => {
    const b = await peer('127.0.0.115');
    await b.p2p.start();
    // A accepts no inbound connections: B (which kept A's address) cannot be the one that
    // brings them back together.
    const a = await peer('127.0.0.114', { inbound: false, peers: [b.address()] });
    await a.p2p.start();
    await waitUntil('A to dial B', () => dialled(a, b));

    await b.p2p.stop();
    const server = () => a.p2p.knownServers().find((s) => s.ip === b.host);
    await waitUntil('A to fail to reach B twice', () => (server()?.attempts ?? 0) >= 2, 20_000);
    expect(connected(a, b)).toBe(false);

    await b.p2p.start();
    await waitUntil('A to dial B again', () => dialled(a, b), 20_000);
    expect(server()?.attempts).toBe(0);
  }, 40_000);
});
