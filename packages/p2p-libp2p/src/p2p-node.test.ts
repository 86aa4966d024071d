import { createDevGenesis, DEV_PRIVATE_KEY } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from './testing/p2p-fixture';
import { growChain, sameHead, sendFromDev, waitUntil } from './testing/temp-network';

const { peer } = useP2PFixture();

describe('two nodes', () => {
  it('a new node syncs the chain of its peer, then follows its gossiped blocks and operations', async () => {
    const a = await peer('127.0.0.2');
    await growChain(a.chain, 30);
    await a.p2p.start();
    const b = await peer('127.0.0.3', { peers: [] });
    await b.p2p.start();
    expect(b.p2p.addPeers(a.address())).toBe(1);
    await waitUntil('b to sync', () => sameHead(a, b));
    expect(b.chain.head().height).toBe(30);
    expect(b.p2p.syncProgress()).toMatchObject({ currentBlock: 30, highestBlock: 30 });

    // A new block on a reaches b by gossip.
    await sendFromDev(a.chain, 5n);
    await a.chain.produceBlock(DEV_PRIVATE_KEY);
    await waitUntil('b to follow', () => sameHead(a, b));

    // An operation submitted on b reaches a's mempool.
    const op = await sendFromDev(b.chain, 7n);
    await waitUntil('the operation to reach a', () =>
      a.chain.pendingOperations().some((p) => p.ophash === op.ophash),
    );
    await a.chain.produceBlock(DEV_PRIVATE_KEY);
    await waitUntil('b to see it mined', () => b.chain.pendingCount() === 0 && sameHead(a, b));

    const [connection] = b.p2p.connections();
    expect(connection).toMatchObject({
      server: true,
      ip: '127.0.0.2',
      port: a.p2p.listenPort,
      appver: 'test',
      netver: 1,
      netver_a: 0,
    });
    expect(connection!.sent).toBeGreaterThan(0);
    expect(connection!.recv).toBeGreaterThan(connection!.sent);
    expect(b.p2p.netStats()).toMatchObject({
      active: 1,
      clients: 0,
      servers: 1,
      total: 1,
      tservers: 1,
    });
    expect(a.p2p.netStats()).toMatchObject({ active: 1, clients: 1, servers: 0, tclients: 1 });
    const [stats] = b.p2p.ipStats('127.0.0.2');
    expect(stats!.kinds.get('Hello')?.get('Autosend')?.count).toBeGreaterThan(0);
    expect(stats!.kinds.get('Blocks')?.get('Autoreceive')?.datasize).toBeGreaterThan(0);
    expect(stats!.kinds.get('NewBlock')?.get('Autoreceive')?.count).toBeGreaterThan(0);
    expect(stats!.kinds.get('NewOperations')?.get('Autosend')?.count).toBeGreaterThan(0);
  });

  it('refuses and blacklists a node of another genesis, with an ERRCODE reason', async () => {
    const a = await peer('127.0.0.4');
    await a.p2p.start();
    const other = await peer('127.0.0.5', { genesis: createDevGenesis({ network: 'other' }) });
    await other.p2p.start();
    other.p2p.addPeers(a.address());
    await waitUntil('a to blacklist the stranger', () => a.p2p.blacklist().length === 1);
    const [entry] = a.p2p.blacklist();
    expect(entry).toMatchObject({ ip: '127.0.0.5', manual: false });
    expect(entry!.reason).toMatch(/^ERRCODE:1080 ERROR:GENESIS_MISMATCH /);
    await waitUntil('the stranger to blacklist a', () => other.p2p.blacklist().length === 1);
    expect(other.p2p.blacklist()[0]).toMatchObject({ ip: '127.0.0.4', port: a.p2p.listenPort });
    expect(a.p2p.blacklist()[0]).toMatchObject({ port: other.p2p.listenPort });
    await waitUntil('the stranger to be cut off', () => a.p2p.connections().length === 0);
  });
});

describe('consensus over the network', () => {
  it("a node on a lighter fork reorganises to its peer's chain", async () => {
    const a = await peer('127.0.0.11');
    await growChain(a.chain, 2);
    const b = await peer('127.0.0.12');
    for (let h = 1; h <= 2; h++) await b.chain.importBlock((await a.chain.getBlockBytes(h))!);
    await growChain(a.chain, 3); // a: 5 blocks
    await growChain(b.chain, 1); // b: 3 blocks, the last one its own
    const forked = b.chain.head().hash;
    await a.p2p.start();
    await b.p2p.start();
    const told: number[] = [];
    b.p2p.onReorganized((reorganization) => told.push(reorganization.depth));
    expect(b.p2p.lastReorganization()).toBeUndefined();
    b.p2p.addPeers(a.address());
    await waitUntil('b to reorganise onto a', () => sameHead(a, b));
    expect(b.chain.head()).toEqual(a.chain.head());
    expect(told).toEqual([1]);
    expect(b.p2p.lastReorganization()).toMatchObject({
      peer: '127.0.0.11',
      forkHeight: 2,
      depth: 1,
      deep: false,
      oldHead: { height: 3, hash: forked },
      newHead: { height: 5, hash: a.chain.head().hash },
    });
    expect(b.chain.stateRoot()).toEqual(a.chain.stateRoot());
    expect(await b.chain.heightOfHash(forked)).toBeUndefined();
    // b's own transfer reused the dev account's n_operation that a's chain took: it is dropped.
    expect(b.chain.pendingCount()).toBe(0);
  });

  it('does not count as synced while a peer is ahead or during the start-up grace', async () => {
    const a = await peer('127.0.0.13');
    await growChain(a.chain, 20);
    await a.p2p.start();
    const b = await peer('127.0.0.14', { peers: [a.address()], startupGraceMs: 60_000 });
    await b.p2p.start();
    expect(b.p2p.isSynced()).toBe(false);
    await waitUntil('b to sync', () => sameHead(a, b));
    await waitUntil('b to count as synced', () => b.p2p.isSynced());
    await growChain(a.chain, 1);
    await waitUntil('b to follow', () => sameHead(a, b));
    expect(b.p2p.isSynced()).toBe(true);
  });
});

describe('inbound off (a dev node that joins nobody unless told to)', () => {
  it('refuses every inbound connection, keeps its chain, and still dials the peers it is told of', async () => {
    const logged: string[] = [];
    const log = {
      debug: () => undefined,
      info: (_details: object, message: string) => logged.push(message),
      warn: (_details: object, message: string) => logged.push(message),
    };
    const closed = await peer('127.0.0.15', { inbound: false, log });
    await growChain(closed.chain, 2);
    const own = closed.chain.head();
    await closed.p2p.start();
    const other = await peer('127.0.0.16');
    await growChain(other.chain, 6);
    await other.p2p.start();

    expect(other.p2p.addPeers(closed.address())).toBe(1);
    await waitUntil('the refusal', () =>
      logged.includes('inbound P2P connection refused: this node accepts no inbound peers'),
    );
    // Dials are retried every 200 ms here: give them a few.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(closed.p2p.connections()).toEqual([]);
    expect(other.p2p.connections()).toEqual([]);
    expect(closed.chain.head()).toEqual(own);
    expect(closed.p2p.lastReorganization()).toBeUndefined();

    // Told to (addNode), it dials out, and follows the heavier chain, saying so.
    closed.p2p.addPeers(other.address());
    await waitUntil('the closed node to reorganise', () => sameHead(closed, other));
    expect(closed.p2p.lastReorganization()).toMatchObject({ depth: 2, peer: '127.0.0.16' });
  });
});

describe('blacklist', () => {
  it('cuts a peer off, refuses it while listed, and lets it back when cleared', async () => {
    const a = await peer('127.0.0.6');
    await a.p2p.start();
    const b = await peer('127.0.0.7', { peers: [] });
    await b.p2p.start();
    b.p2p.addPeers(a.address());
    await waitUntil('connected', () => a.p2p.connections().length === 1);
    a.p2p.addBlacklist('127.0.0.7', 'testing');
    await waitUntil(
      'cut off',
      () => a.p2p.connections().length === 0 && b.p2p.connections().length === 0,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(a.p2p.connections()).toEqual([]);
    expect(a.p2p.blacklist()).toEqual([
      expect.objectContaining({ ip: '127.0.0.7', reason: 'testing', manual: true }),
    ]);
    expect(a.p2p.clearBlacklist()).toBe(1);
    await waitUntil('back', () => a.p2p.connections().length === 1, 5000);
  });
});
