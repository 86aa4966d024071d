import { afterEach, describe, expect, it } from 'vitest';
import { BLOCKS_PROTOCOL } from './block-sync';
import { FrameReader, writeFrame } from './framing';
import { LIMITS, RATE_LIMITS } from './limits';
import { encodeBlocksRequest } from './messages';
import { BAN_SCORE, PENALTY } from './misbehaviour';
import { installPromiseWithResolvers } from './polyfill';
import {
  blocksTopic,
  dialPeer,
  type HostileHost,
  openHostileHost,
  opsTopic,
  sayHello,
} from './testing/hostile-peer';
import {
  growChain,
  openTestPeer,
  sendFromDev,
  type TestPeer,
  waitUntil,
} from './testing/temp-network';

installPromiseWithResolvers();

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function peer(host: string, options: Parameters<typeof openTestPeer>[1] = {}) {
  const p = await openTestPeer(host, options);
  cleanups.push(() => p.cleanup());
  return p;
}

/** A hostile host connected to `victim`, its hello accepted. */
async function connectedHostile(ip: string, victim: TestPeer) {
  const host: HostileHost = await openHostileHost(ip);
  cleanups.push(async () => {
    await host.stop();
  });
  const connection = await dialPeer(host, victim);
  await sayHello(connection, victim.chain);
  await waitUntil('the hello to be accepted', () =>
    victim.p2p.connections().some((c) => c.ip === ip && c.appver === 'hostile'),
  );
  return { host, connection };
}

async function subscribed(host: HostileHost, topic: string): Promise<void> {
  host.services.pubsub.subscribe(topic);
  await waitUntil(
    'the victim to be seen on the topic',
    () => host.services.pubsub.getSubscribers(topic).length === 1,
  );
}

const sameHead = (a: TestPeer, b: TestPeer) =>
  Buffer.compare(a.chain.head().hash, b.chain.head().hash) === 0;

const banned = (victim: TestPeer, ip: string) =>
  victim.p2p.blacklist().find((entry) => entry.ip === ip);

/** Messages a flooder gets through before its ban: the burst, then one flood offence per drop. */
function messagesToBan(kind: keyof typeof RATE_LIMITS): number {
  return RATE_LIMITS[kind].burst + Math.ceil(BAN_SCORE / PENALTY.flood);
}

describe('floods', () => {
  it('a peer gossiping a known block over and over, and one gossiping operation batches, are banned; the honest peer stays', async () => {
    const victim = await peer('127.0.0.41');
    await growChain(victim.chain, 3);
    await victim.p2p.start();
    const honest = await peer('127.0.0.42', { peers: [victim.address()] });
    await honest.p2p.start();
    await waitUntil('the honest peer to sync', () => sameHead(victim, honest));

    // Duplicates of a block the victim has: each is a new gossip message (a new sequence number),
    // cheap to make, and costs the victim a lookup; an honest node re-sends a block a few times.
    const blocks = await connectedHostile('127.0.0.43', victim);
    const topic = blocksTopic(victim.chain);
    await subscribed(blocks.host, topic);
    const block = (await victim.chain.getBlockBytes(2))!;
    let sent = 0;
    while (banned(victim, '127.0.0.43') === undefined && sent < 2000) {
      await blocks.host.services.pubsub.publish(topic, block);
      sent++;
      if (sent % 50 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(banned(victim, '127.0.0.43')?.reason).toMatch(/^ERRCODE:1080 ERROR:FLOOD blockGossip /);
    // The ban came right after the burst and ten dropped messages (give or take the messages in
    // flight when the sender looked, and the tokens refilled meanwhile).
    expect(sent).toBeGreaterThanOrEqual(messagesToBan('blockGossip'));
    expect(sent).toBeLessThan(2000);

    // A batch of an operation the victim holds already, over and over: it decodes, is checked,
    // and admits nothing.
    await sendFromDev(victim.chain, 1n);
    const known = victim.chain.encodeRaw(victim.chain.pendingOperationBytes(1));
    const ops = await connectedHostile('127.0.0.44', victim);
    const opsTopicName = opsTopic(victim.chain);
    await subscribed(ops.host, opsTopicName);
    sent = 0;
    while (banned(victim, '127.0.0.44') === undefined && sent < 3000) {
      await ops.host.services.pubsub.publish(opsTopicName, known);
      sent++;
      if (sent % 50 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(banned(victim, '127.0.0.44')?.reason).toMatch(
      /^ERRCODE:1080 ERROR:FLOOD operationsGossip /,
    );
    expect(sent).toBeGreaterThanOrEqual(messagesToBan('operationsGossip'));

    await waitUntil('both flooders to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip === '127.0.0.42'),
    );
    // The honest peer was never scored, and still follows.
    expect(victim.p2p.blacklist().map((e) => e.ip)).toEqual(['127.0.0.43', '127.0.0.44']);
    await growChain(victim.chain, 2);
    await waitUntil('the honest peer to follow', () => sameHead(victim, honest));
    expect(victim.p2p.connections().map((c) => c.ip)).toEqual(['127.0.0.42']);
  });

  it('a peer repeating hellos as fast as it can is banned; the honest peer stays', async () => {
    const victim = await peer('127.0.0.45');
    await growChain(victim.chain, 2);
    await victim.p2p.start();
    const honest = await peer('127.0.0.46', { peers: [victim.address()] });
    await honest.p2p.start();
    await waitUntil('the honest peer to sync', () => sameHead(victim, honest));

    const { connection } = await connectedHostile('127.0.0.47', victim);
    let answered = 1;
    let refused = 0;
    const started = Date.now();
    while (banned(victim, '127.0.0.47') === undefined && answered + refused < 1000) {
      try {
        await sayHello(connection, victim.chain);
        answered++;
      } catch {
        refused++;
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const entry = banned(victim, '127.0.0.47');
    expect(entry?.reason).toMatch(/^ERRCODE:1080 ERROR:FLOOD hello /);
    // Hellos answered: the burst plus what the rate refilled while the flood ran.
    const { burst, perSecond } = RATE_LIMITS.hello;
    expect(answered).toBeGreaterThanOrEqual(burst);
    expect(answered).toBeLessThanOrEqual(burst + Math.ceil(perSecond * seconds) + 1);
    expect(refused).toBeGreaterThanOrEqual(Math.ceil(BAN_SCORE / PENALTY.flood) - 1);

    await waitUntil('the flooder to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip === '127.0.0.46'),
    );
    await growChain(victim.chain, 1);
    await waitUntil('the honest peer to follow', () => sameHead(victim, honest));
    expect(victim.p2p.blacklist().map((e) => e.ip)).toEqual(['127.0.0.47']);
  });

  it('a peer asking for blocks over and over is banned; the honest peer stays', async () => {
    const victim = await peer('127.0.0.48');
    await growChain(victim.chain, 5);
    await victim.p2p.start();
    const honest = await peer('127.0.0.49', { peers: [victim.address()] });
    await honest.p2p.start();
    await waitUntil('the honest peer to sync', () => sameHead(victim, honest));

    // The whole chain from genesis, again and again: each answer costs the victim reads and bytes.
    const { connection } = await connectedHostile('127.0.0.50', victim);
    const request = encodeBlocksRequest({
      locator: [(await victim.chain.blockHash(0))!],
      maxBlocks: 1000,
      maxBytes: 1024 * 1024,
    });
    let answered = 0;
    let refused = 0;
    while (banned(victim, '127.0.0.50') === undefined && answered + refused < 1000) {
      try {
        const stream = await connection.newStream(BLOCKS_PROTOCOL);
        await writeFrame(stream, request);
        await stream.close();
        const reader = new FrameReader(stream, 5000);
        let frames = 0;
        while ((await reader.next(LIMITS.blockBytes)) !== undefined) frames++;
        expect(frames).toBe(6); // the response header, then blocks 1 to 5
        answered++;
      } catch {
        refused++;
      }
    }
    expect(banned(victim, '127.0.0.50')?.reason).toMatch(
      /^ERRCODE:1080 ERROR:FLOOD blocksRequest /,
    );
    expect(answered).toBeGreaterThanOrEqual(RATE_LIMITS.blocksRequest.burst);
    expect(answered + refused).toBeLessThan(1000);

    await waitUntil('the flooder to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip === '127.0.0.49'),
    );
    await growChain(victim.chain, 1);
    await waitUntil('the honest peer to follow', () => sameHead(victim, honest));
    expect(victim.p2p.blacklist().map((e) => e.ip)).toEqual(['127.0.0.50']);
  });
});
