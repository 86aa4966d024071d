import { DEV_PRIVATE_KEY } from '@chain/ledger';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { gossipsub } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameReader, writeFrame } from './framing';
import { LIMITS } from './limits';
import { encodeHello } from './messages';
import { HELLO_PROTOCOL } from './p2p-node';
import { installPromiseWithResolvers } from './polyfill';
import { openTestPeer, sendFromDev, type TestPeer, waitUntil } from './testing/temp-network';

installPromiseWithResolvers();

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/**
 * A peer speaking the protocols by hand (raw libp2p): it says hello properly, then gossips a block
 * whose producer signature is broken. The node must refuse the block, not relay it, and blacklist
 * the sender's IP with an ERRCODE reason.
 */
describe('a hostile peer', () => {
  it('that gossips an invalid block is disconnected and blacklisted with ERRCODE:1003', async () => {
    const victim = await openTestPeer('127.0.0.8');
    cleanups.push(() => victim.cleanup());
    await victim.p2p.start();
    const source: TestPeer = await openTestPeer('127.0.0.10');
    cleanups.push(() => source.cleanup());
    await sendFromDev(source.chain, 1n);
    await source.chain.produceBlock(DEV_PRIVATE_KEY);
    const block = (await source.chain.getBlockBytes(1))!.slice();
    // Flip a byte of the producer signature (it follows the 146-byte header of an empty payload).
    block[150]! ^= 0xff;

    const hostile = await createLibp2p({
      addresses: { listen: ['/ip4/127.0.0.9/tcp/0'] },
      transports: [tcp({ dialOpts: { localAddress: '127.0.0.9' } as object })],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: {
        identify: identify(),
        pubsub: gossipsub({ allowPublishToZeroTopicPeers: true, emitSelf: false }),
      },
    });
    cleanups.push(async () => {
      await hostile.stop();
    });
    const connection = await hostile.dial(multiaddr(`/ip4/127.0.0.8/tcp/${victim.p2p.listenPort}`));
    const stream = await connection.newStream(HELLO_PROTOCOL);
    const head = victim.chain.head();
    await writeFrame(
      stream,
      encodeHello({
        genesisHash: victim.chain.genesisHash,
        network: 'dev',
        appVersion: 'hostile',
        netVer: 1,
        netVerA: 0,
        timestamp: Math.floor(Date.now() / 1000),
        listenPort: 0,
        head: { height: head.height, hash: head.hash, weight: head.weight },
      }),
    );
    await new FrameReader(stream).expect(LIMITS.helloBytes);
    await stream.close();
    await waitUntil('the hello to be accepted', () => victim.p2p.connections().length === 1);

    const topic = `/chain/${Buffer.from(victim.chain.genesisHash).toString('hex').slice(0, 16)}/blocks/1`;
    hostile.services.pubsub.subscribe(topic);
    await waitUntil(
      'the victim to see the subscription',
      () => hostile.services.pubsub.getSubscribers(topic).length === 1,
    );
    await hostile.services.pubsub.publish(topic, block);

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
    await expect(
      hostile.dial(multiaddr(`/ip4/127.0.0.8/tcp/${victim.p2p.listenPort}`), {
        signal: AbortSignal.timeout(3000),
      }),
    ).rejects.toThrow();
  });
});
