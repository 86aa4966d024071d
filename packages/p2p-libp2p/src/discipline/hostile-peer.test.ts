import { DEV_PRIVATE_KEY } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { blocksTopic, dialPeer, joinTopic } from '../testing/hostile-peer';
import { useP2PFixture } from '../testing/p2p-fixture';
import { sendFromDev, waitUntil } from '../testing/temp-network';

const { peer, connectedHostile } = useP2PFixture();

/**
 * A peer speaking the protocols by hand (raw libp2p): it says hello properly, then gossips a block
 * whose producer signature is broken. The node must refuse the block, not relay it, and blacklist
 * the sender's IP with an ERRCODE reason.
 */
describe('a hostile peer', () => {
  it('that gossips an invalid block is disconnected and blacklisted with ERRCODE:1003', async () => {
    const victim = await peer('127.0.0.8');
    await victim.p2p.start();
    const source = await peer('127.0.0.10');
    await sendFromDev(source.chain, 1n);
    await source.chain.produceBlock(DEV_PRIVATE_KEY);
    const block = (await source.chain.getBlockBytes(1))!.slice();
    // Flip a byte of the producer signature (it follows the 146-byte header of an empty payload).
    block[150]! ^= 0xff;

    const { host } = await connectedHostile('127.0.0.9', victim);
    const topic = blocksTopic(victim.chain);
    await joinTopic(host, topic);
    await host.services.pubsub.publish(topic, block);

    await waitUntil(
      'the hostile peer to be blacklisted',
      () => victim.p2p.blacklist().length === 1,
    );
    const [entry] = victim.p2p.blacklist();
    expect(entry).toMatchObject({ ip: '127.0.0.9', manual: false });
    expect(entry!.reason).toMatch(/^ERRCODE:1003 ERROR:BAD_BLOCK_SIGNATURE /);
    expect(victim.chain.head().height).toBe(0);
    await waitUntil('the connection to be closed', () => victim.p2p.connections().length === 0);
    // and it cannot come back
    await expect(dialPeer(host, victim, 3000)).rejects.toThrow();
  });
});
