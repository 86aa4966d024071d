import type { Connection, Stream } from '@libp2p/interface';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_P2P_OPTIONS } from '../p2p-options';
import {
  dialPeer,
  joinTopic,
  openHostileHost,
  opsTopic,
  sayHello,
  streamFate,
} from '../testing/hostile-peer';
import { keepsSyncing, useP2PFixture } from '../testing/p2p-fixture';
import { heldCount, startSocketFlood } from '../testing/socket-flood';
import { type TestPeer, waitUntil } from '../testing/temp-network';
import { LIMITS } from '../wire/limits';
import {
  BLOCKS_PROTOCOL,
  HELLO_PROTOCOL,
  MEMPOOL_PROTOCOL,
  PEERS_PROTOCOL,
} from '../wire/message-table';
import { BAN_SCORE, PENALTY } from './misbehaviour';

const fixture = useP2PFixture();
const { connectedHostile } = fixture;

/** The per-second connection threshold is lifted: the raw-socket flood connects faster. */
const victimWithHonestPeer = (victimIp: string, honestIp: string) =>
  fixture.victimWithHonestPeer(victimIp, honestIp, {
    victimOptions: { inboundConnectionsPerSecond: 1000 },
  });

function frameHeader(length: number): Uint8Array {
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, length, true);
  return header;
}

/** Opens a stream, writes the chunks, closes its writing side; how the victim ended it. */
async function garbageStream(
  connection: Connection,
  protocol: string,
  chunks: Uint8Array[],
  waitMs = 3000,
) {
  let stream: Stream;
  try {
    stream = await connection.newStream(protocol, { signal: AbortSignal.timeout(3000) });
  } catch {
    return 'refused';
  }
  try {
    for (const chunk of chunks) if (!stream.send(chunk)) await stream.onDrain();
    await stream.close({ signal: AbortSignal.timeout(3000) });
  } catch {
    // reset by the victim while writing: that is its answer
  }
  return streamFate(stream, waitMs);
}

/** A logger that keeps the offence of each 'peer misbehaved' warning. */
function offenceLog(offences: string[]) {
  return {
    debug() {},
    info() {},
    warn(details: { offence?: string }, message: string) {
      if (message === 'peer misbehaved') offences.push(details.offence!);
    },
  };
}

/** `honest` is the only peer left on `victim`, and follows its blocks. */
async function honestStillServed(victim: TestPeer, honest: TestPeer) {
  await keepsSyncing(victim, honest);
  expect(victim.p2p.connections().map((c) => c.ip)).toEqual([honest.host]);
}

describe('garbage', () => {
  it('bad framing and undecodable requests on a protocol stream are scored, and repeated, banned', async () => {
    const offences: string[] = [];
    const { victim, honest } = await fixture.victimWithHonestPeer('127.0.0.51', '127.0.0.52', {
      victimOptions: { inboundConnectionsPerSecond: 1000, log: offenceLog(offences) },
    });
    const ip = '127.0.0.53';
    const { connection } = await connectedHostile(ip, victim);

    // A frame announcing more than a sync request may hold (oversized: 50 points).
    const oversized = [frameHeader(LIMITS.syncRequestBytes + 1)];
    expect(await garbageStream(connection, BLOCKS_PROTOCOL, oversized)).toBe('reset');
    // A frame cut short: 100 bytes announced, 10 sent, then the end (truncated: 20 points, once
    // the connection is seen to stay open).
    const cutShort = [frameHeader(100), new Uint8Array(10)];
    expect(await garbageStream(connection, BLOCKS_PROTOCOL, cutShort)).toBe('reset');
    await waitUntil('the cut-short frame to be scored', () => offences.includes('truncated'));
    expect(offences).toEqual(['oversized', 'truncated']);
    expect(victim.p2p.blacklist()).toEqual([]);
    expect(PENALTY.oversized + PENALTY.truncated).toBeLessThan(BAN_SCORE);
    // A whole frame of bytes that are no sync request (garbage: 40 points): 110, banned.
    const junk = new Uint8Array(64).fill(0xee);
    expect(await garbageStream(connection, BLOCKS_PROTOCOL, [frameHeader(junk.length), junk])).toBe(
      'reset',
    );
    await waitUntil('the hostile peer to be banned', () => victim.p2p.blacklist().length === 1);
    expect(victim.p2p.blacklist()[0]).toMatchObject({ ip, manual: false });
    expect(victim.p2p.blacklist()[0]!.reason).toMatch(/^ERRCODE:1016 ERROR:malformed blocks /);
    await waitUntil('the hostile peer to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip !== ip),
    );
    await honestStillServed(victim, honest);
  });

  it('a message cut short because the connection went away is no fault (the peer stopped or crashed)', async () => {
    const truncated: string[] = [];
    const log = {
      debug() {},
      info() {},
      warn(details: { offence?: string; peer?: string }, message: string) {
        if (message === 'peer misbehaved') truncated.push(`${details.peer} ${details.offence}`);
      },
    };
    const victim = await fixture.peer('127.0.0.57', { log });
    await victim.p2p.start();
    const cutShort = async (ip: string, end: 'stream' | 'connection') => {
      const { connection } = await connectedHostile(ip, victim);
      const stream = await connection.newStream(HELLO_PROTOCOL);
      stream.send(frameHeader(100));
      stream.send(new Uint8Array(10));
      if (end === 'stream') await stream.close();
      else await connection.close();
    };
    // The connection closed mid-message, as when a node is killed: not scored.
    await cutShort('127.0.0.58', 'connection');
    // The stream ended mid-message on a connection that stays: scored, as before.
    await cutShort('127.0.0.59', 'stream');
    await waitUntil('the cut-short stream to be scored', () => truncated.length > 0);
    // Both were judged by now: the first one's grace ended before the second one's.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(truncated).toEqual(['127.0.0.59 truncated']);
  });

  it('arbitrary bytes on any protocol stream never stop the node serving an honest peer', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.54', '127.0.0.55');
    const protocols = [HELLO_PROTOCOL, BLOCKS_PROTOCOL, MEMPOOL_PROTOCOL, PEERS_PROTOCOL];
    // Bytes that often look like a frame: a plausible length prefix, then arbitrary content.
    const payload = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc
        .tuple(fc.nat({ max: 400 }), fc.uint8Array({ maxLength: 300 }))
        .map(([length, body]) => [frameHeader(length), body]),
    );
    const runs = Number(process.env.P2P_FUZZ_RUNS ?? 16);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...protocols), payload, async (protocol, bytes) => {
        // A fresh IP per run: a banned one would only meet the gater.
        const ip = `127.77.${Math.floor(run / 250)}.${1 + (run % 250)}`;
        run++;
        const host = await openHostileHost(ip);
        try {
          const connection = await dialPeer(host, victim);
          await sayHello(connection, victim.chain);
          const chunks = bytes instanceof Uint8Array ? [bytes] : bytes;
          // The node ends every such stream at once (answered, reset, or refused), none is left
          // waiting for its idle timeout.
          expect(await garbageStream(connection, protocol, chunks)).not.toBe('open');
        } finally {
          await host.stop();
        }
        expect(victim.p2p.connections().some((c) => c.ip === honest.host)).toBe(true);
      }),
      { numRuns: runs },
    );
    // Nothing of the hostile peers is left on the node once they are gone.
    await waitUntil('the hostile connections to be gone', () =>
      victim.p2p.connections().every((c) => c.ip === honest.host),
    );
    await honestStillServed(victim, honest);
  });

  it('a process writing garbage on raw sockets is banned after ten failed handshakes', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.56', '127.0.0.57');
    const fates = await startSocketFlood({
      from: ['127.0.0.1'],
      host: victim.host,
      port: victim.p2p.listenPort,
      count: 16,
      intervalMs: 40,
      garbageBytes: 2048,
      // Most garbage is refused on its first bytes; about 1 in 256 leaves the handshake waiting
      // (see below) until the ban or the handshake timeout. The flood ends once all are closed.
      holdMs: DEFAULT_P2P_OPTIONS.handshakeTimeoutMs + 3000,
    }).done;
    // The node hung up on every socket: on the garbage, at the ban, or (once banned) at once.
    expect(heldCount(fates)).toBe(0);
    const [entry] = victim.p2p.blacklist();
    expect(entry).toMatchObject({ ip: '127.0.0.1', manual: false });
    expect(entry!.reason).toBe(
      'ERRCODE:1016 ERROR:connection closed before its handshake completed',
    );
    expect(Math.ceil(BAN_SCORE / PENALTY.failedHandshake)).toBe(10);
    await honestStillServed(victim, honest);
  });

  it('bytes that leave the handshake waiting for more are cut off at the handshake timeout, and scored', async () => {
    expect(DEFAULT_P2P_OPTIONS.handshakeTimeoutMs).toBe(5000);
    const handshakeTimeoutMs = 1000;
    const failed: string[] = [];
    const log = {
      debug() {},
      info() {},
      warn(details: { offence?: string; peer?: string }, message: string) {
        if (message === 'peer misbehaved' && details.offence === 'failedHandshake')
          failed.push(details.peer!);
      },
    };
    const victim = await fixture.peer('127.0.0.61', { handshakeTimeoutMs, log });
    await victim.p2p.start();
    const stalled = (ip: string, prefix: number[], garbageBytes: number) =>
      startSocketFlood({
        from: [ip],
        host: victim.host,
        port: victim.p2p.listenPort,
        count: 2,
        prefix,
        garbageBytes,
        holdMs: handshakeTimeoutMs + 4000,
      }).done;
    const [unfinishedLength, shortMessage] = await Promise.all([
      // A multistream-select length prefix that never ends: libp2p's varint reader waits for
      // more while the first 8 bytes all have their top bit set, whatever follows.
      stalled('127.0.0.62', new Array(8).fill(0x80), 2048),
      // The multistream-select header, then a message announcing 100 bytes; 10 come.
      stalled('127.0.0.63', [0x13, ...Buffer.from('/multistream/1.0.0\n'), 100], 10),
    ]);
    for (const fate of [...unfinishedLength!, ...shortMessage!]) {
      expect(fate.held).toBe(false);
      // Waited for, then cut off: not refused on sight, not left to libp2p's 10 s.
      expect(fate.closedAfterMs).toBeGreaterThanOrEqual(handshakeTimeoutMs - 50);
    }
    expect(failed.sort()).toEqual(['127.0.0.62', '127.0.0.62', '127.0.0.63', '127.0.0.63']);
  });

  it('a ban cuts the connections of the IP still in their handshake at once', async () => {
    // A handshake timeout beyond the hold: only the ban can close the sockets.
    const victim = await fixture.peer('127.0.0.64', { handshakeTimeoutMs: 30_000 });
    await victim.p2p.start();
    const unfinishedLength = new Array(8).fill(0x80);
    const flood = startSocketFlood({
      from: ['127.0.0.1'],
      host: victim.host,
      port: victim.p2p.listenPort,
      count: DEFAULT_P2P_OPTIONS.maxInboundPerIp,
      prefix: unfinishedLength,
      holdMs: 5000,
    });
    // Their bytes reached the node's upgrade (tracked once the gater admitted them).
    await waitUntil(
      'the sockets to be in their handshake',
      () =>
        victim.p2p.netStats().breceived >=
        DEFAULT_P2P_OPTIONS.maxInboundPerIp * unfinishedLength.length,
    );
    victim.p2p.addBlacklist('127.0.0.1', 'test');
    const fates = await flood.done;
    expect(heldCount(fates)).toBe(0);
  });

  it('gossip over the size limit is dropped and scored; a second one is a ban', async () => {
    const { victim, honest } = await victimWithHonestPeer('127.0.0.58', '127.0.0.59');
    const { host } = await connectedHostile('127.0.0.60', victim);
    const topic = opsTopic(victim.chain);
    await joinTopic(host, topic);
    // One byte over the limit of an operations message (1 MiB): 50 points each.
    const big = new Uint8Array(LIMITS.operationsGossipBytes + 1);
    await host.services.pubsub.publish(topic, big);
    await new Promise((r) => setTimeout(r, 300));
    expect(victim.p2p.blacklist()).toEqual([]);
    expect(PENALTY.oversized * 2).toBe(BAN_SCORE);
    await host.services.pubsub.publish(topic, big);
    await waitUntil('the hostile peer to be banned', () => victim.p2p.blacklist().length === 1);
    expect(victim.p2p.blacklist()[0]).toMatchObject({ ip: '127.0.0.60', manual: false });
    expect(victim.p2p.blacklist()[0]!.reason).toBe(
      'ERRCODE:1016 ERROR:oversized operations message',
    );
    await waitUntil('the hostile peer to be cut off', () =>
      victim.p2p.connections().every((c) => c.ip !== '127.0.0.60'),
    );
    await honestStillServed(victim, honest);
  });
});
