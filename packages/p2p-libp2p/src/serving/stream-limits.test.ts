import type { Stream } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { BAN_SCORE, PENALTY } from '../discipline/misbehaviour';
import { streamFate } from '../testing/hostile-peer';
import { keepsSyncing, useP2PFixture } from '../testing/p2p-fixture';
import { waitUntil } from '../testing/temp-network';
import { FrameReader } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { BLOCKS_PROTOCOL, MEMPOOL_PROTOCOL, STREAM_LIMITS } from '../wire/message-table';

const { peer, connectedHostile, victimWithHonestPeer } = useP2PFixture();

describe('per-protocol stream limits', () => {
  it('resets inbound streams beyond the protocol limit, scores each, and bans a peer that keeps going', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.31', '127.0.0.32');
    const { connection } = await connectedHostile('127.0.0.33', victim);

    // Block requests that never come: each stream holds a serving slot until the idle timeout.
    const limit = STREAM_LIMITS.blocks;
    const held: Stream[] = [];
    for (let i = 0; i < limit; i++) held.push(await connection.newStream(BLOCKS_PROTOCOL));
    for (const stream of held) expect(await streamFate(stream, 200)).toBe('open');

    // Every stream beyond is reset; the fifth excess one reaches the ban score.
    const excessToBan = Math.ceil(BAN_SCORE / PENALTY.tooManyStreams);
    for (let i = 0; i < excessToBan; i++) {
      const stream = await connection.newStream(BLOCKS_PROTOCOL);
      expect(await streamFate(stream, 3000)).toBe('reset');
      if (i < excessToBan - 1) expect(victim.p2p.blacklist()).toEqual([]);
    }
    await waitUntil('the peer to be banned', () => victim.p2p.blacklist().length === 1);
    const [entry] = victim.p2p.blacklist();
    expect(entry).toMatchObject({ ip: '127.0.0.33', manual: false });
    expect(entry!.reason).toMatch(/^ERRCODE:1080 ERROR:TOO_MANY_STREAMS /);
    await waitUntil('the hostile peer to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip !== '127.0.0.33'),
    );

    // The honest peer is still there and following.
    await keepsSyncing(victim, honest);
    expect(victim.p2p.connections().map((c) => c.ip)).toEqual([honest.host]);
  });

  it('counts a stream until the peer closes its side too: answered requests left open hold their places', async () => {
    const victim = await peer('127.0.0.34');
    await victim.p2p.start();
    const { connection } = await connectedHostile('127.0.0.35', victim);

    /** Asks for the mempool and reads the whole answer, leaving its own side open. */
    const ask = async () => {
      const stream = await connection.newStream(MEMPOOL_PROTOCOL);
      const reader = new FrameReader(stream, { idleMs: 3000 });
      try {
        while ((await reader.next(LIMITS.operationsGossipBytes)) !== undefined);
        return { stream, answered: true };
      } catch {
        return { stream, answered: false };
      }
    };
    const limit = STREAM_LIMITS.mempool;
    const held = [];
    for (let i = 0; i < limit; i++) held.push(await ask());
    expect(held.map((h) => h.answered)).toEqual(Array(limit).fill(true));
    // Answered, but not closed on this side: the places are still taken.
    const refused = await ask();
    expect(refused.answered).toBe(false);
    expect(await streamFate(refused.stream, 2000)).toBe('reset');
    // Closing one frees its place.
    await held[0]!.stream.close();
    await waitUntil('the place to be freed', async () => {
      const again = await ask();
      await again.stream.close().catch(() => undefined);
      return again.answered;
    });
    expect(victim.p2p.blacklist()).toEqual([]);
  });
});
