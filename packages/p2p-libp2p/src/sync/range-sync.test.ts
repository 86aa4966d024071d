import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Chain, createChain, createDevGenesis } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { streamPair } from '@libp2p/utils';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_P2P_OPTIONS } from '../p2p-options';
import { installPromiseWithResolvers } from '../polyfill';
import { serveBlocks } from '../serving/blocks-serving';
import { growChain, waitUntil } from '../testing/temp-network';
import { BlockSync } from './block-sync';
import type { Reorganization, SyncPeer } from './sync-types';

installPromiseWithResolvers();

const BATCH = 10;
const RANGES = 6;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openChain(): Promise<Chain> {
  const dir = await mkdtemp(join(tmpdir(), 'range-pipeline-'));
  const chain = createChain({ dataDir: dir, genesis: createDevGenesis() });
  await chain.open();
  cleanups.push(async () => {
    await chain.close();
    await rm(dir, { recursive: true, force: true });
  });
  return chain;
}

async function copyBlocks(from: Chain, to: Chain, first: number, last: number): Promise<void> {
  for (let h = first; h <= last; h++) await to.importBlock((await from.getBlockBytes(h))!);
}

/**
 * A peer holding `chain`: each stream opened to it is a libp2p stream pair served by serveBlocks;
 * a `slowMs` one sends `slowBytes` every `slowMs` (a thin link).
 */
/** A peer whose record the test sets as it needs (PeerState's are written by its methods only). */
type TestSyncPeer = { -readonly [K in keyof SyncPeer]: SyncPeer[K] };

function servingPeer(
  ip: string,
  chain: Chain,
  served: string[],
  slowMs = 0,
  slowBytes = 64,
): TestSyncPeer {
  return {
    ip,
    head: chain.head(),
    syncRetryAt: 0,
    learnTip(tip) {
      this.head = tip;
    },
    postponeSync(until) {
      this.syncRetryAt = until;
    },
    async openStream() {
      const [outbound, inbound] = await streamPair();
      if (slowMs > 0) thinLink(inbound, slowMs, slowBytes);
      void serveBlocks(chain, inbound, ip, {
        traffic: (_ip, kind) => {
          if (kind === 'GetBlocks') served.push(ip);
        },
      }).catch(() => undefined);
      return outbound;
    },
  };
}

/** Sends what `stream` sends `bytes` every `ms` (a thin link), and closes it after the last. */
function thinLink(stream: Stream, ms: number, bytes: number): void {
  const send = stream.send.bind(stream);
  const close = stream.close.bind(stream);
  let sending = Promise.resolve();
  stream.send = (data) => {
    const all = data.subarray();
    sending = sending.then(async () => {
      for (let i = 0; i < all.length && stream.status === 'open'; i += bytes) {
        send(all.subarray(i, i + bytes));
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
    });
    return true;
  };
  stream.close = async (options) => {
    await sending;
    if (stream.status === 'open') await close(options);
  };
}

/**
 * Syncs `fresh` from `peers` up to `height`, a range stalling after 100 ms without a block; the
 * peers that stalled, in order.
 */
async function syncGivingUpAfter100ms(
  fresh: Chain,
  peers: SyncPeer[],
  height: number,
): Promise<string[]> {
  const stalls: string[] = [];
  const sync = new BlockSync({
    settings: DEFAULT_P2P_OPTIONS,
    chain: fresh,
    batchBlocks: BATCH,
    stallMs: 100,
    hooks: {
      peers: () => peers,
      misbehaved: (_peer, _offence, _code, text) => {
        throw new Error(`a slow peer is no offender: ${text}`);
      },
      traffic: () => undefined,
      log: (_level, details, message) => {
        if (message === 'sync peer stalled a range') {
          stalls.push((details as { peer: string }).peer);
        }
      },
    },
  });
  sync.trigger();
  await waitUntil('the sync', () => fresh.head().height === height && !sync.syncing);
  return stalls;
}

/** A chain of RANGES ranges of blocks, and a second chain holding the same blocks. */
async function sourceAndCopy() {
  const source = await openChain();
  await growChain(source, BATCH * RANGES);
  const copy = await openChain();
  await copyBlocks(source, copy, 1, source.head().height);
  return { source, copy };
}

describe('pipelined range sync', () => {
  it('asks for each next range before the one before it is imported, of a peer that keeps up', async () => {
    const { source, copy } = await sourceAndCopy();
    const fresh = await openChain();
    const served: string[] = [];
    const peers = [
      servingPeer('198.18.0.11', source, served),
      servingPeer('198.18.0.12', copy, served),
    ];
    // The syncing node's head when each request leaves, in order.
    const headAtRequest: number[] = [];
    const sync = new BlockSync({
      settings: DEFAULT_P2P_OPTIONS,
      chain: fresh,
      batchBlocks: BATCH,
      hooks: {
        peers: () => peers,
        misbehaved: (_peer, _offence, _code, text) => {
          throw new Error(`no peer misbehaves here: ${text}`);
        },
        traffic: (_ip, kind, direction) => {
          if (kind === 'GetBlocks' && direction === 'Autosend') {
            headAtRequest.push(fresh.head().height);
          }
        },
        log: () => undefined,
      },
    });
    sync.trigger();
    await waitUntil(
      'the sync',
      () => fresh.head().height === source.head().height && !sync.syncing,
    );
    expect(Buffer.from(fresh.head().hash)).toEqual(Buffer.from(source.head().hash));

    // One request per range, not one more round trip per range.
    expect(headAtRequest).toHaveLength(RANGES);
    // Range i (after block i * BATCH) is asked while the blocks before it are still being
    // imported: without pipelining each request waits for the range before it to be applied.
    headAtRequest.slice(1).forEach((head, i) => {
      expect(head, `request ${i + 2}`).toBeLessThan((i + 1) * BATCH);
    });
    // The first peer kept up: it served every range.
    expect(served).toEqual(Array(RANGES).fill(peers[0]!.ip));
  });

  it("asks the first range with the first peer's hello, and drops the streams not used", async () => {
    const { source, copy } = await sourceAndCopy();
    const fresh = await openChain();
    const served: string[] = [];
    const opened = new Map<string, Stream[]>();
    const counted = (peer: TestSyncPeer): TestSyncPeer => {
      const open = peer.openStream.bind(peer);
      peer.openStream = async (protocol) => {
        const stream = await open(protocol);
        opened.set(peer.ip, [...(opened.get(peer.ip) ?? []), stream]);
        return stream;
      };
      return peer;
    };
    const ahead = counted(servingPeer('198.18.0.16', source, served));
    const other = counted(servingPeer('198.18.0.17', copy, served));
    // Before their hellos: their tips are not known yet.
    const tip = ahead.head;
    ahead.head = undefined;
    other.head = undefined;
    const requestsToAhead: number[] = [];
    const sync = new BlockSync({
      settings: DEFAULT_P2P_OPTIONS,
      chain: fresh,
      batchBlocks: BATCH,
      hooks: {
        peers: () => [ahead, other],
        misbehaved: (_peer, _offence, _code, text) => {
          throw new Error(`no peer misbehaves here: ${text}`);
        },
        // The streams open to the peer ahead as each request to it leaves.
        traffic: (ip, kind, direction) => {
          if (kind === 'GetBlocks' && direction === 'Autosend' && ip === ahead.ip) {
            requestsToAhead.push(opened.get(ahead.ip)?.length ?? 0);
          }
        },
        log: () => undefined,
      },
    });
    sync.preopen(ahead);
    sync.preopen(other);
    // The first gets the request for the blocks after this node's head at once, with its hello;
    // the other a stream only (each peer asked would read and send a range).
    await waitUntil('both streams', () => opened.size === 2 && served.length === 1);
    expect(served).toEqual([ahead.ip]);
    expect(requestsToAhead).toEqual([1]);
    // The hello of one tells its tip: the sync reads the answer to the request already sent.
    ahead.head = tip;
    sync.trigger();
    await waitUntil(
      'the sync',
      () => fresh.head().height === source.head().height && !sync.syncing,
    );
    expect(Buffer.from(fresh.head().hash)).toEqual(Buffer.from(source.head().hash));
    // One stream and one request per range, the first of them those sent with the hello.
    expect(opened.get(ahead.ip)).toHaveLength(RANGES);
    expect(requestsToAhead).toEqual(Array.from({ length: RANGES }, (_, i) => i + 1));
    // The other peer's was dropped once the sync began: its serving slot is free again.
    expect(opened.get(other.ip)).toHaveLength(1);
    await waitUntil('the unused stream to be dropped', () =>
      ['aborted', 'reset', 'closed'].includes(opened.get(other.ip)![0]!.status),
    );
  });

  it("reads the asked peer's answer when another peer's hello starts the sync first", async () => {
    const { source, copy } = await sourceAndCopy();
    const fresh = await openChain();
    const served: string[] = [];
    const asked = servingPeer('198.18.0.18', source, served);
    const other = servingPeer('198.18.0.19', copy, served);
    const tip = asked.head;
    asked.head = undefined;
    other.head = undefined;
    const sync = new BlockSync({
      settings: DEFAULT_P2P_OPTIONS,
      chain: fresh,
      batchBlocks: BATCH,
      hooks: {
        peers: () => [asked, other].filter((p) => p.head !== undefined),
        misbehaved: (_peer, _offence, _code, text) => {
          throw new Error(`no peer misbehaves here: ${text}`);
        },
        traffic: () => undefined,
        log: () => undefined,
      },
    });
    sync.preopen(asked);
    sync.preopen(other);
    await waitUntil('the request sent with the hello', () => served.length === 1);
    // The other peer's hello ends first and starts the sync; the asked one's a moment later.
    other.head = tip;
    sync.trigger();
    await new Promise((resolve) => setTimeout(resolve, 20));
    asked.head = tip;
    await waitUntil(
      'the sync',
      () => fresh.head().height === source.head().height && !sync.syncing,
    );
    expect(Buffer.from(fresh.head().hash)).toEqual(Buffer.from(source.head().hash));
    // Every range from the asked peer, the first one the answer to the request sent with its hello.
    expect(served).toEqual(Array(RANGES).fill(asked.ip));
  });

  it('asks the rest of a stalled range of another peer, and leaves the stalled one alone', async () => {
    const { source, copy } = await sourceAndCopy();
    const fresh = await openChain();
    const served: string[] = [];
    // The first peer sends 64 bytes every 50 ms; the importer gives up on it after 100 ms.
    const slow = servingPeer('198.18.0.13', source, served, 50);
    const fast = servingPeer('198.18.0.14', copy, served);
    const stalls = await syncGivingUpAfter100ms(fresh, [slow, fast], source.head().height);
    expect(Buffer.from(fresh.head().hash)).toEqual(Buffer.from(source.head().hash));
    // The slow peer was asked first (its tip came first), stalled once, and was left alone: the
    // fast one served the rest.
    expect(stalls).toEqual([slow.ip]);
    expect(served[0]).toBe(slow.ip);
    expect(served.slice(1).every((ip) => ip === fast.ip)).toBe(true);
    expect(slow.syncRetryAt).toBeGreaterThan(Date.now());
  });

  it('leaves a peer that keeps sending, too slowly, for another: the waits add up', async () => {
    const { source, copy } = await sourceAndCopy();
    const fresh = await openChain();
    const served: string[] = [];
    // A few blocks every 60 ms: no single wait reaches the 100 ms, but the importer is idle most of
    // the time (a peer on a thin link sending its range in packed chunks).
    const slow = servingPeer('198.18.0.16', source, served, 60, 512);
    const fast = servingPeer('198.18.0.17', copy, served);
    const stalls = await syncGivingUpAfter100ms(fresh, [slow, fast], source.head().height);
    expect(Buffer.from(fresh.head().hash)).toEqual(Buffer.from(source.head().hash));
    expect(stalls).toEqual([slow.ip]);
    expect(served[0]).toBe(slow.ip);
    expect(served.slice(1).every((ip) => ip === fast.ip)).toBe(true);
  });

  it('waits for the only peer, however slow (asking it again would throw away its block)', async () => {
    const source = await openChain();
    await growChain(source, 3);
    const fresh = await openChain();
    const served: string[] = [];
    // A block every 200 ms or so: each one is waited for longer than stallMs.
    const only = servingPeer('198.18.0.15', source, served, 60);
    const stalls = await syncGivingUpAfter100ms(fresh, [only], source.head().height);
    expect(stalls).toEqual([]);
    expect(served).toEqual([only.ip]);
  });
});

describe('a branch that loses to this chain', () => {
  it('is no fault of its sender when this chain moved past its tip during the request', async () => {
    // A common base of 3 blocks; the peer's branch has 2 more, this node 1 more (so it asks the
    // peer), and while the peer's answer is on its way this node gets 2 more by other means.
    const base = await openChain();
    await growChain(base, 3);
    const peerChain = await openChain();
    await copyBlocks(base, peerChain, 1, 3);
    await growChain(peerChain, 2);
    const ownBranch = await openChain();
    await copyBlocks(base, ownBranch, 1, 3);
    await growChain(ownBranch, 3);
    const node = await openChain();
    await copyBlocks(ownBranch, node, 1, 4);

    const peer = servingPeer('198.18.0.13', peerChain, []);
    const faults: string[] = [];
    const reorganize = node.reorganize.bind(node);
    node.reorganize = async (forkHeight, blocks) => {
      await copyBlocks(ownBranch, node, 5, 6);
      return reorganize(forkHeight, blocks);
    };
    const sync = new BlockSync({
      settings: DEFAULT_P2P_OPTIONS,
      chain: node,
      hooks: {
        peers: () => [peer],
        misbehaved: (_peer, offence, _code, text) => faults.push(`${offence}: ${text}`),
        traffic: () => undefined,
        log: () => undefined,
      },
    });
    sync.trigger();
    await waitUntil('the sync round', () => peer.syncRetryAt > 0 && !sync.syncing);

    expect(node.head().height).toBe(6);
    expect(Buffer.from(node.head().hash)).toEqual(Buffer.from(ownBranch.head().hash));
    expect(faults).toEqual([]);
  });
});

describe('a branch that wins', () => {
  /** A node of `own` blocks after a common base of 2, and a peer of `theirs` after it. */
  async function forkedPair(own: number, theirs: number) {
    const base = await openChain();
    await growChain(base, 2);
    const peerChain = await openChain();
    await copyBlocks(base, peerChain, 1, 2);
    await growChain(peerChain, theirs);
    const node = await openChain();
    await copyBlocks(base, node, 1, 2);
    await growChain(node, own);
    return { node, peerChain };
  }

  async function syncOnce(node: Chain, peerChain: Chain) {
    const peer = servingPeer('198.18.0.21', peerChain, []);
    const logs: Array<{ level: string; details: Record<string, unknown>; message: string }> = [];
    const reorganizations: Reorganization[] = [];
    const sync = new BlockSync({
      settings: DEFAULT_P2P_OPTIONS,
      chain: node,
      hooks: {
        peers: () => [peer],
        misbehaved: () => undefined,
        traffic: () => undefined,
        log: (level, details, message) =>
          logs.push({ level, details: details as Record<string, unknown>, message }),
        reorganized: (reorganization) => reorganizations.push(reorganization),
      },
    });
    const oldHead = node.head();
    sync.trigger();
    await waitUntil('the reorganisation', () => reorganizations.length > 0);
    await sync.stop();
    return { logs, reorganizations, oldHead };
  }

  it('deeper than reorgWarnDepth: reported, and logged at WARN with both heads, depth and peer', async () => {
    const { node, peerChain } = await forkedPair(5, 8);
    const { logs, reorganizations, oldHead } = await syncOnce(node, peerChain);

    expect(Buffer.from(node.head().hash)).toEqual(Buffer.from(peerChain.head().hash));
    expect(reorganizations).toHaveLength(1);
    const [reorganization] = reorganizations;
    expect(reorganization).toMatchObject({
      peer: '198.18.0.21',
      forkHeight: 2,
      depth: 5,
      deep: true,
      oldHead: { height: 7 },
      newHead: { height: 10 },
    });
    expect(Buffer.from(reorganization!.oldHead.hash)).toEqual(Buffer.from(oldHead.hash));
    const warn = logs.find((entry) => entry.level === 'warn');
    expect(warn?.message).toMatch(/deep reorganisation: 5 blocks/);
    expect(warn?.details).toMatchObject({
      peer: '198.18.0.21',
      depth: 5,
      oldHead: { height: 7, hash: Buffer.from(oldHead.hash).toString('hex') },
      newHead: { height: 10, hash: Buffer.from(peerChain.head().hash).toString('hex') },
    });
  });

  it('of a block or two: reported too, logged at INFO', async () => {
    const { node, peerChain } = await forkedPair(1, 3);
    const { logs, reorganizations } = await syncOnce(node, peerChain);

    expect(reorganizations.map((r) => [r.depth, r.deep])).toEqual([[1, false]]);
    expect(logs.filter((entry) => entry.level === 'warn')).toEqual([]);
    expect(logs.some((entry) => entry.message === 'reorganised to a heavier branch')).toBe(true);
  });
});
