import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Chain, DEV_PRIVATE_KEY } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { sameHead, sendFromDev, type TestPeer, waitUntil } from '../testing/temp-network';
import { RECORDS_PER_OPERATION, SnapSync } from './snap-sync';

// Issue 42 item 2: a node at block 0 chooses how to join by the work, as its peers' hellos tell
// it: the operations a replay applies against the records a snapshot copies; far fewer blocks
// than --snap-distance may hold many operations. Real libp2p nodes on loopback.

const fixture = useP2PFixture();

/** Nodes that tell the work in their hello (ver_a 1), joining by snapshot at 10,000 blocks. */
const WORK_AWARE = {
  netProtocol: { ver: 1, ver_a: 1 },
  sync: 'snap',
  snapDistance: 10_000,
  snapOperations: 50,
  snapshotEvery: 1,
  fetchHistory: false,
} as const;

/** `blocks` blocks of `perBlock` dev transfers to new accounts each. */
async function growWide(chain: Chain, blocks: number, perBlock: number): Promise<void> {
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < perBlock; i++) await sendFromDev(chain, BigInt(i + 1));
    await chain.produceBlock(DEV_PRIVATE_KEY);
  }
}

/** A started source whose snapshot of its head is kept (so its hello tells its records). */
async function sourceOf(host: string, blocks: number, perBlock: number, options = {}) {
  const source = await fixture.peer(host, { ...WORK_AWARE, ...options });
  await growWide(source.chain, blocks, perBlock);
  await source.p2p.start();
  const kept = join(source.dir, 'p2p', 'served-snapshots');
  await waitUntil('the snapshot to be kept', async () =>
    (await readdir(kept).catch(() => [])).some((name) => name.endsWith('.manifest')),
  );
  return source;
}

async function joined(source: TestPeer, host: string, options = {}): Promise<TestPeer> {
  const joiner = await fixture.peer(host, {
    ...WORK_AWARE,
    peers: [source.address()],
    ...options,
  });
  await joiner.p2p.start();
  await waitUntil('the joiner to reach the head', () => sameHead(source, joiner), 20_000);
  return joiner;
}

describe('the join mode, chosen by cost', () => {
  it('a node 3 blocks behind, of 60 operations each, joins from a snapshot', async () => {
    const source = await sourceOf('127.0.0.101', 3, 60);
    const joiner = await joined(source, '127.0.0.102');
    // Joined from the snapshot of block 3: it holds no block below it (no history fetched).
    expect(joiner.chain.historyStart()).toBe(3);
    const [connection] = joiner.p2p.connections();
    expect(connection).toMatchObject({ netver: 1, netver_a: 1 });
  }, 30_000);

  it('a node 3 blocks behind, of one operation each, replays them', async () => {
    const source = await sourceOf('127.0.0.103', 3, 1);
    const joiner = await joined(source, '127.0.0.104');
    expect(joiner.chain.historyStart()).toBe(0);
  });

  it('`full` replays the many operations all the same', async () => {
    const source = await sourceOf('127.0.0.105', 3, 60);
    const joiner = await joined(source, '127.0.0.106', { sync: 'full' });
    expect(joiner.chain.historyStart()).toBe(0);
  }, 30_000);

  it('nodes of an older version (ver_a 0) meet newer ones both ways, and replay', async () => {
    const older = { netProtocol: { ver: 1, ver_a: 0 } } as const;
    // A newer source: it tells an older joiner no work (that joiner refuses bytes after the tip).
    const newer = await sourceOf('127.0.0.107', 3, 60);
    const oldJoiner = await joined(newer, '127.0.0.108', older);
    expect(oldJoiner.chain.historyStart()).toBe(0);
    // An older source tells no work: a newer joiner goes by blocks, so it replays.
    const oldSource = await sourceOf('127.0.0.109', 3, 60, older);
    const newJoiner = await joined(oldSource, '127.0.0.110');
    expect(newJoiner.chain.historyStart()).toBe(0);
  }, 40_000);
});

describe('far behind (SnapSync.farBehind)', () => {
  const snap = new SnapSync({
    chain: {} as Chain,
    mode: 'snap',
    distance: 10_000,
    operations: 20_000,
    gatherMs: 0,
    dir: '/nonexistent',
    hooks: {
      peers: () => [],
      misbehaved: () => undefined,
      log: () => undefined,
      unconnectedServers: () => 0,
    },
  });
  const peer = (height: number, work?: { operations: number; snapshotRecords: number }) => ({
    ip: '198.18.0.1',
    head: { height, hash: new Uint8Array(32), weight: 2 * height },
    syncRetryAt: 0,
    openStream: () => Promise.reject(new Error('not here')),
    learnTip: () => undefined,
    postponeSync: () => undefined,
    ...(work === undefined ? {} : { work }),
  });

  it('by blocks, as --snap-distance says, whatever the work', () => {
    expect(snap.farBehind(peer(10_000))).toBe(true);
    expect(snap.farBehind(peer(9_999))).toBe(false);
  });

  it('by work: enough operations, costing more than the records to copy', () => {
    // Issue 42: 300,000 accounts in 93 blocks.
    expect(snap.farBehind(peer(93, { operations: 300_000, snapshotRecords: 300_004 }))).toBe(true);
    // A state far larger than its operations (a genesis of many accounts): replay.
    const records = 30_000 * RECORDS_PER_OPERATION + 1;
    expect(snap.farBehind(peer(93, { operations: 30_000, snapshotRecords: records }))).toBe(false);
    // Few operations: a replay is about as quick as a snapshot's set-up.
    expect(snap.farBehind(peer(93, { operations: 19_999, snapshotRecords: 100 }))).toBe(false);
    // No snapshot served, or work not known (0): by blocks only.
    expect(snap.farBehind(peer(93, { operations: 300_000, snapshotRecords: 0 }))).toBe(false);
    expect(snap.farBehind(peer(93, { operations: 0, snapshotRecords: 300_004 }))).toBe(false);
  });
});
