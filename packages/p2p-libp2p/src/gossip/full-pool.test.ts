import { DEV_PRIVATE_KEY } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { sameHead, sendFromDev, waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

/** About 20 transfers to new wallets (pendingEntryBytes: ~2.3 KB each). */
const SMALL_POOL_BYTES = 48 * 1024;
const SENT = 120;

function offenceLog(offences: string[]) {
  return {
    debug() {},
    info() {},
    warn(details: { offence?: string }, message: string) {
      if (message === 'peer misbehaved') offences.push(details.offence!);
    },
  };
}

describe('a full mempool', () => {
  it('drops what a peer gossips beyond it, without scoring the peer, and takes the rest from its blocks', async () => {
    const a = await peer('127.0.0.41');
    await a.p2p.start();
    const offences: string[] = [];
    const b = await peer('127.0.0.42', {
      peers: [a.address()],
      log: offenceLog(offences),
      chainOptions: { maxPendingBytes: SMALL_POOL_BYTES },
    });
    await b.p2p.start();
    await waitUntil('b to connect', () => b.p2p.connections().length === 1);

    for (let i = 0; i < SENT; i++) await sendFromDev(a.chain, BigInt(i + 1));
    expect(a.chain.pendingCount()).toBe(SENT);
    // b takes what fits its budget and drops the rest of what a gossips.
    await waitUntil('b to fill its pool', () => b.chain.pendingCount() >= 10);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(b.chain.pendingCount()).toBeLessThan(SENT / 2);

    // Not the peer's fault: no offence, still connected, and b follows a's block of all of them.
    await a.chain.produceBlock(DEV_PRIVATE_KEY);
    await waitUntil('b to follow', () => sameHead(a, b));
    expect(b.chain.pendingCount()).toBe(0);
    expect(offences).toEqual([]);
    expect(b.p2p.connections().map((c) => c.ip)).toEqual([a.host]);
    expect(b.p2p.blacklist()).toEqual([]);
  });
});
