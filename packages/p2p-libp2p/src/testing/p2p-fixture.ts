import type { Connection, Libp2p } from '@libp2p/interface';
import { afterEach, expect } from 'vitest';
import { connectHostile, type HostileHost, openBareHost, openHostileHost } from './hostile-peer';
import {
  growChain,
  openTestPeer,
  sameHead,
  type TestPeer,
  type TestPeerOptions,
  waitUntil,
} from './temp-network';

export interface VictimSetup {
  /** Blocks the victim has before the honest peer syncs (2 by default). */
  blocks?: number;
  victimOptions?: TestPeerOptions;
}

/** What a P2P test opens: each one is closed after the test, the last opened first. */
export interface P2PFixture {
  peer(host: string, options?: TestPeerOptions): Promise<TestPeer>;
  bareHost(ip: string): Promise<Libp2p>;
  /** A hostile host on `ip` connected to `victim`, its hello accepted. */
  connectedHostile(
    ip: string,
    victim: TestPeer,
  ): Promise<{ host: HostileHost; connection: Connection }>;
  /** A started victim with some blocks, and a started honest peer that has synced them from it. */
  victimWithHonestPeer(
    victimIp: string,
    honestIp: string,
    setup?: VictimSetup,
  ): Promise<{ victim: TestPeer; honest: TestPeer }>;
}

/** Registers an `afterEach` that closes what the test opened; call it at the top of a test file. */
export function useP2PFixture(): P2PFixture {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  function stoppedAfter<T extends Libp2p>(host: T): T {
    cleanups.push(async () => {
      await host.stop();
    });
    return host;
  }

  async function peer(host: string, options: TestPeerOptions = {}): Promise<TestPeer> {
    const opened = await openTestPeer(host, options);
    cleanups.push(() => opened.cleanup());
    return opened;
  }

  return {
    peer,
    bareHost: async (ip) => stoppedAfter(await openBareHost(ip)),
    async connectedHostile(ip, victim) {
      const host = stoppedAfter(await openHostileHost(ip));
      return { host, connection: await connectHostile(host, ip, victim) };
    },
    async victimWithHonestPeer(victimIp, honestIp, { blocks = 2, victimOptions = {} } = {}) {
      const victim = await peer(victimIp, victimOptions);
      await growChain(victim.chain, blocks);
      await victim.p2p.start();
      const honest = await peer(honestIp, { peers: [victim.address()] });
      await honest.p2p.start();
      await waitUntil('the honest peer to sync', () => sameHead(victim, honest));
      return { victim, honest };
    },
  };
}

/** `honest` is connected to `victim` and follows the `blocks` produced on it now. */
export async function keepsSyncing(victim: TestPeer, honest: TestPeer, blocks = 1): Promise<void> {
  await growChain(victim.chain, blocks);
  await waitUntil('the honest peer to follow', () => sameHead(victim, honest));
  expect(victim.p2p.connections().some((c) => c.ip === honest.host)).toBe(true);
}
