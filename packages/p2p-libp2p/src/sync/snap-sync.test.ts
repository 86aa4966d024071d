import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Chain } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { forgeServedSnapshots } from '../testing/forged-snapshots';
import { useP2PFixture } from '../testing/p2p-fixture';
import { growChain, sameHead, type TestPeer, waitUntil } from '../testing/temp-network';

// Snapshot sync between real libp2p nodes on loopback: a node at block 0 far behind joins from a
// peer's snapshot instead of replaying the blocks, holds every entry the peer holds, and follows
// the chain from there; a peer whose snapshot is not its block's state is banned and the join
// completes from the honest one.

const fixture = useP2PFixture();

const SNAP = { sync: 'snap', snapDistance: 5, snapshotEvery: 1 } as const;

async function records(chain: Chain): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const batch of chain.snapshot().records()) out.push(...batch.map((r) => r.slice()));
  return out;
}

/** A node started at block 0 with `source` as its peer, once at its head (no history fetched). */
async function joinedFrom(source: TestPeer, host: string): Promise<TestPeer> {
  const joiner = await fixture.peer(host, {
    ...SNAP,
    fetchHistory: false,
    peers: [source.address()],
  });
  await joiner.p2p.start();
  await waitUntil('the joiner to reach the head', () => sameHead(source, joiner));
  return joiner;
}

describe('snapshot sync', () => {
  it('a node far behind joins from a snapshot and holds every entry its peer holds', async () => {
    const source = await fixture.peer('127.0.0.65', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const joiner = await fixture.peer('127.0.0.66', { ...SNAP, peers: [source.address()] });
    await joiner.p2p.start();
    await waitUntil('the joiner to reach the head', () => sameHead(source, joiner));
    expect(await records(joiner.chain)).toEqual(await records(source.chain));
    // From there it follows the chain block by block.
    await growChain(source.chain, 2);
    await waitUntil('the joiner to follow', () => sameHead(source, joiner));
    expect(joiner.chain.stateRoot()).toEqual(source.chain.stateRoot());
    // And it fetches the history below the snapshot, every block checked against its header.
    await waitUntil('the history to be filled', () => joiner.chain.historyStart() === 0);
    for (let h = 0; h < source.chain.blockCount(); h++) {
      expect(await joiner.chain.getBlockBytes(h)).toEqual(await source.chain.getBlockBytes(h));
    }
  });

  it('a node that keeps no history (fetchHistory off) starts at the snapshot', async () => {
    const source = await fixture.peer('127.0.0.75', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const joiner = await joinedFrom(source, '127.0.0.76');
    expect(joiner.chain.historyStart()).toBe(source.chain.head().height);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(joiner.chain.historyStart()).toBe(source.chain.head().height);
  });

  it('a node that joined from a snapshot is not taken for a liar by one that replays blocks', async () => {
    const source = await fixture.peer('127.0.0.72', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const joined = await fixture.peer('127.0.0.73', {
      ...SNAP,
      fetchHistory: false,
      peers: [source.address()],
    });
    await joined.p2p.start();
    await waitUntil('the snapshot join', () => sameHead(source, joined));
    const offences: string[] = [];
    const replaying = await fixture.peer('127.0.0.74', {
      ...SNAP,
      sync: 'full',
      peers: [joined.address()],
      log: {
        debug() {},
        info() {},
        warn: (details) => offences.push(JSON.stringify(details)),
      },
    });
    await replaying.p2p.start();
    await waitUntil('a connection to the joined node', () =>
      replaying.p2p.connections().some((c) => c.ip === joined.host),
    );
    // It asks the joined node for the blocks after block 0, which that node does not hold.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(offences).toEqual([]);
    expect(replaying.chain.head().height).toBe(0);
    replaying.p2p.addPeers(source.address());
    await waitUntil('the replaying node to sync', () => sameHead(source, replaying), 20_000);
    expect(replaying.chain.historyStart()).toBe(0);
    expect(replaying.p2p.blacklist()).toEqual([]);
  }, 30_000);

  it('a restarted node serves the snapshot it kept on disk, without a new pass over its state', async () => {
    const source = await fixture.peer('127.0.0.77', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const kept = join(source.dir, 'p2p', 'served-snapshots');
    const manifests = async () =>
      (await readdir(kept).catch(() => [])).filter((name) => name.endsWith('.manifest'));
    await waitUntil('the snapshot to be kept', async () => (await manifests()).length > 0);
    const before = await manifests();
    const take = source.chain.serveSnapshot.bind(source.chain);
    let passes = 0;
    source.chain.serveSnapshot = (dir, signal) => {
      passes++;
      return take(dir, signal);
    };
    await source.restartP2P();
    await source.p2p.start();
    const joiner = await joinedFrom(source, '127.0.0.78');
    expect(joiner.chain.historyStart()).toBe(source.chain.head().height);
    expect(await records(joiner.chain)).toEqual(await records(source.chain));
    expect(passes).toBe(0);
    expect(await manifests()).toEqual(before);
  });

  it('while a node takes a new snapshot, a joiner gets the one it has without waiting', async () => {
    const source = await fixture.peer('127.0.0.81', { ...SNAP, snapshotEvery: 4 });
    await growChain(source.chain, 8);
    await source.p2p.start();
    const kept = join(source.dir, 'p2p', 'served-snapshots');
    await waitUntil('the first snapshot', async () =>
      (await readdir(kept).catch(() => [])).some((name) => name.endsWith('.manifest')),
    );
    const first = source.chain.head().height;
    // The next pass (at a multiple of 4) does not end until the test says so.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const take = source.chain.serveSnapshot.bind(source.chain);
    let passes = 0;
    source.chain.serveSnapshot = async (dir, signal) => {
      passes++;
      await gate;
      return take(dir, signal);
    };
    await growChain(source.chain, 4);
    await waitUntil('the next pass to start', () => passes === 1);
    const joiner = await joinedFrom(source, '127.0.0.82');
    expect(joiner.chain.historyStart()).toBe(first);
    release();
  });

  it('a node whose snapshot file is damaged removes it, unbanned; the joiner replays the blocks', async () => {
    const source = await fixture.peer('127.0.0.83', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const kept = join(source.dir, 'p2p', 'served-snapshots');
    const files = async () => (await readdir(kept).catch(() => [])).sort();
    await waitUntil('the snapshot to be kept', async () =>
      (await files()).some((name) => name.endsWith('.manifest')),
    );
    const [chunks] = (await files()).filter((name) => name.endsWith('.chunks'));
    const bytes = await readFile(join(kept, chunks!));
    bytes[bytes.length - 3]! ^= 1;
    await writeFile(join(kept, chunks!), bytes);
    const joiner = await joinedFrom(source, '127.0.0.84');
    expect(joiner.chain.historyStart()).toBe(0);
    expect(await files()).not.toContain(chunks);
    expect(joiner.p2p.blacklist()).toEqual([]);
    expect(source.p2p.blacklist()).toEqual([]);
  });

  it('a node that serves no snapshots keeps none, and a joiner replays its blocks', async () => {
    const source = await fixture.peer('127.0.0.79', { ...SNAP, serveSnapshots: false });
    await growChain(source.chain, 8);
    await source.p2p.start();
    const joiner = await joinedFrom(source, '127.0.0.80');
    expect(joiner.chain.historyStart()).toBe(0);
    expect(await readdir(join(source.dir, 'p2p'))).not.toContain('served-snapshots');
  });

  it('with `full` it replays every block instead', async () => {
    const source = await fixture.peer('127.0.0.67', SNAP);
    await growChain(source.chain, 8);
    await source.p2p.start();
    const joiner = await fixture.peer('127.0.0.68', {
      ...SNAP,
      sync: 'full',
      peers: [source.address()],
    });
    await joiner.p2p.start();
    await waitUntil('the joiner to reach the head', () => sameHead(source, joiner));
    expect(joiner.chain.historyStart()).toBe(0);
  });

  it('a peer serving a snapshot that is not its block state is banned; the join completes from the honest one', async () => {
    const honest = await fixture.peer('127.0.0.69', SNAP);
    await growChain(honest.chain, 8);
    await honest.p2p.start();
    const liar = await fixture.peer('127.0.0.70', {
      ...SNAP,
      sync: 'full',
      peers: [honest.address()],
    });
    // Before it starts: it takes the snapshots it serves ahead of time, as soon as it has the chain.
    forgeServedSnapshots(liar.chain);
    await liar.p2p.start();
    await waitUntil('the liar to copy the chain', () => sameHead(honest, liar));
    const joiner = await fixture.peer('127.0.0.71', {
      ...SNAP,
      // However long both hellos take on a busy machine, the liar is asked for its manifest.
      snapGatherMs: 15_000,
      peers: [honest.address(), liar.address()],
    });
    await joiner.p2p.start();
    await waitUntil('the joiner to reach the head', () => sameHead(honest, joiner), 20_000);
    expect(joiner.chain.historyStart()).toBeGreaterThan(0);
    expect(await records(joiner.chain)).toEqual(await records(honest.chain));
    await waitUntil('the liar to be banned', () =>
      joiner.p2p.blacklist().some((entry) => entry.ip === liar.host),
    );
    const entry = joiner.p2p.blacklist().find((e) => e.ip === liar.host)!;
    expect(JSON.stringify(entry)).toMatch(/FORGED_SNAPSHOT/);
  }, 30_000);
});
