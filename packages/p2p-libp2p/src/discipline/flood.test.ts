import { describe, expect, it } from 'vitest';
import { blocksTopic, joinTopic, opsTopic, sayHello } from '../testing/hostile-peer';
import { keepsSyncing, useP2PFixture } from '../testing/p2p-fixture';
import { sendFromDev, type TestPeer, waitUntil } from '../testing/temp-network';
import { FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { BLOCKS_PROTOCOL, RATE_LIMITS } from '../wire/message-table';
import { encodeBlocksRequest } from '../wire/messages';
import { BAN_SCORE, PENALTY } from './misbehaviour';

const { connectedHostile, victimWithHonestPeer } = useP2PFixture();

const banned = (victim: TestPeer, ip: string) =>
  victim.p2p.blacklist().find((entry) => entry.ip === ip);

/** Messages a flooder gets through before its ban: the burst, then one flood offence per drop. */
function messagesToBan(kind: keyof typeof RATE_LIMITS): number {
  return RATE_LIMITS[kind].burst + Math.ceil(BAN_SCORE / PENALTY.flood);
}

/**
 * Runs `attempt` over and over until `victim` bans `ip`, or `max` times: how many attempts were
 * made, how many resolved (answered) and how many threw (refused).
 */
async function floodUntilBanned(
  victim: TestPeer,
  ip: string,
  max: number,
  attempt: () => Promise<unknown>,
) {
  let answered = 0;
  let refused = 0;
  while (banned(victim, ip) === undefined && answered + refused < max) {
    try {
      await attempt();
      answered++;
    } catch {
      refused++;
    }
    // Publishing gossip never waits for the victim: let it run now and then.
    if ((answered + refused) % 50 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  return { sent: answered + refused, answered, refused };
}

/** Waits until the honest peer is the victim's only connection. */
function floodersCutOff(victim: TestPeer, honest: TestPeer): Promise<void> {
  return waitUntil('the flooders to be cut off', () =>
    victim.p2p.connections().every((c) => c.ip === honest.host),
  );
}

const blacklistedIps = (victim: TestPeer) => victim.p2p.blacklist().map((e) => e.ip);

describe('floods', () => {
  it('a peer gossiping a known block over and over, and one gossiping operation batches, are banned; the honest peer stays', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.41', '127.0.0.42', {
      blocks: 3,
    });

    // Duplicates of a block the victim has: each is a new gossip message (a new sequence number),
    // cheap to make, and costs the victim a lookup; an honest node re-sends a block a few times.
    const blocks = await connectedHostile('127.0.0.43', victim);
    const topic = blocksTopic(victim.chain);
    await joinTopic(blocks.host, topic);
    const block = (await victim.chain.getBlockBytes(2))!;
    const blockFlood = await floodUntilBanned(victim, '127.0.0.43', 2000, () =>
      blocks.host.services.pubsub.publish(topic, block),
    );
    expect(banned(victim, '127.0.0.43')?.reason).toMatch(/^ERRCODE:1080 ERROR:FLOOD blockGossip /);
    // The ban came right after the burst and ten dropped messages (give or take the messages in
    // flight when the sender looked, and the tokens refilled meanwhile).
    expect(blockFlood.sent).toBeGreaterThanOrEqual(messagesToBan('blockGossip'));
    expect(blockFlood.sent).toBeLessThan(2000);
    expect(blockFlood.refused).toBe(0); // a flooder's messages are dropped, its publishing never fails

    // A batch of an operation the victim holds already, over and over: it decodes, is checked,
    // and admits nothing.
    await sendFromDev(victim.chain, 1n);
    const known = victim.chain.encodeRaw(victim.chain.pendingOperationBytes(1));
    const ops = await connectedHostile('127.0.0.44', victim);
    const opsTopicName = opsTopic(victim.chain);
    await joinTopic(ops.host, opsTopicName);
    const opsFlood = await floodUntilBanned(victim, '127.0.0.44', 3000, () =>
      ops.host.services.pubsub.publish(opsTopicName, known),
    );
    expect(banned(victim, '127.0.0.44')?.reason).toMatch(
      /^ERRCODE:1080 ERROR:FLOOD operationsGossip /,
    );
    expect(opsFlood.sent).toBeGreaterThanOrEqual(messagesToBan('operationsGossip'));
    expect(opsFlood.refused).toBe(0);

    await floodersCutOff(victim, honest);
    // The honest peer was never scored, and still follows.
    expect(blacklistedIps(victim)).toEqual(['127.0.0.43', '127.0.0.44']);
    await keepsSyncing(victim, honest, 2);
    expect(victim.p2p.connections().map((c) => c.ip)).toEqual([honest.host]);
  });

  it('a peer repeating hellos as fast as it can is banned; the honest peer stays', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.45', '127.0.0.46');

    const { connection } = await connectedHostile('127.0.0.47', victim);
    const started = Date.now();
    const flood = await floodUntilBanned(victim, '127.0.0.47', 1000, () =>
      sayHello(connection, victim.chain),
    );
    const seconds = (Date.now() - started) / 1000;
    expect(banned(victim, '127.0.0.47')?.reason).toMatch(/^ERRCODE:1080 ERROR:FLOOD hello /);
    // Hellos answered (the one of connecting too): the burst plus what the rate refilled while
    // the flood ran.
    const answered = 1 + flood.answered;
    const { burst, perSecond } = RATE_LIMITS.hello;
    expect(answered).toBeGreaterThanOrEqual(burst);
    expect(answered).toBeLessThanOrEqual(burst + Math.ceil(perSecond * seconds) + 1);
    expect(flood.refused).toBeGreaterThanOrEqual(Math.ceil(BAN_SCORE / PENALTY.flood) - 1);

    await floodersCutOff(victim, honest);
    await keepsSyncing(victim, honest);
    expect(blacklistedIps(victim)).toEqual(['127.0.0.47']);
  });

  it('a peer asking for blocks over and over is banned; the honest peer stays', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.48', '127.0.0.49', {
      blocks: 5,
    });

    // The whole chain from genesis, again and again: each answer costs the victim reads and bytes.
    const { connection } = await connectedHostile('127.0.0.50', victim);
    const request = encodeBlocksRequest({
      locator: [(await victim.chain.blockHash(0))!],
      maxBlocks: 1000,
      maxBytes: 1024 * 1024,
    });
    const flood = await floodUntilBanned(victim, '127.0.0.50', 1000, async () => {
      const stream = await connection.newStream(BLOCKS_PROTOCOL);
      await writeFrame(stream, request);
      await stream.close();
      const reader = new FrameReader(stream, { idleMs: 5000 });
      let frames = 0;
      while ((await reader.next(LIMITS.blockBytes)) !== undefined) frames++;
      expect(frames).toBe(6); // the response header, then blocks 1 to 5
    });
    expect(banned(victim, '127.0.0.50')?.reason).toMatch(
      /^ERRCODE:1080 ERROR:FLOOD blocksRequest /,
    );
    expect(flood.answered).toBeGreaterThanOrEqual(RATE_LIMITS.blocksRequest.burst);
    expect(flood.sent).toBeLessThan(1000);

    await floodersCutOff(victim, honest);
    await keepsSyncing(victim, honest);
    expect(blacklistedIps(victim)).toEqual(['127.0.0.50']);
  });
});
