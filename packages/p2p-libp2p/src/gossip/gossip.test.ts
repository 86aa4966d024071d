import { DEV_PRIVATE_KEY } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { sameHead, sendFromDev, waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

const SENT = 40;

describe('gossip', () => {
  it("submits a message's operations in one submitRaw of its blob, never one by one", async () => {
    // No rebroadcast of what is still pending (every 10 s): on a loaded machine it would deliver the
    // same operations again, and this test counts deliveries.
    const a = await peer('127.0.0.51', { rebroadcastIntervalMs: 3_600_000 });
    await a.p2p.start();
    const b = await peer('127.0.0.52', { peers: [a.address()] });
    const blobs: number[] = [];
    const raw = b.chain.submitRaw.bind(b.chain);
    b.chain.submitRaw = (blob, options) => {
      blobs.push(b.chain.decodeRaw(blob).length);
      return raw(blob, options);
    };
    let oneByOne = 0;
    const single = b.chain.submitOperation.bind(b.chain);
    b.chain.submitOperation = (bytes, options) => {
      oneByOne++;
      return single(bytes, options);
    };
    await b.p2p.start();
    await waitUntil('b to connect', () => b.p2p.connections().length === 1);
    // Submitted together: a gossips them in its batches (one per ~5 ms window), so a
    // few messages, each one submitRaw at b; a loaded machine may spread the admissions over a
    // few windows.
    await Promise.all(Array.from({ length: SENT }, (_, i) => sendFromDev(a.chain, BigInt(i + 1))));

    await waitUntil('b to take them', () => b.chain.pendingCount() === SENT);
    expect(oneByOne).toBe(0);
    expect(blobs.reduce((sum, n) => sum + n, 0)).toBe(SENT);
    expect(blobs.length).toBeLessThanOrEqual(SENT / 8);
  });

  it('reads nothing to rebroadcast while no peer is ready to take it', async () => {
    const a = await peer('127.0.0.55', { rebroadcastIntervalMs: 50 });
    await a.p2p.start();
    let reads = 0;
    const read = a.chain.pendingOperationBytes.bind(a.chain);
    a.chain.pendingOperationBytes = (max) => {
      reads++;
      return read(max);
    };
    // Pending and the head stuck (nothing produces here): a rebroadcast is due every tick.
    await sendFromDev(a.chain, 1n);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(a.chain.pendingCount()).toBe(1);
    expect(reads).toBe(0);
  });

  it('publishes a produced block with the bytes it committed, without reading it back', async () => {
    const a = await peer('127.0.0.53');
    await a.p2p.start();
    const b = await peer('127.0.0.54', { peers: [a.address()] });
    await b.p2p.start();
    await waitUntil('b to connect', () => b.p2p.connections().length === 1);
    const reads: number[] = [];
    const read = a.chain.getBlockBytes.bind(a.chain);
    a.chain.getBlockBytes = (height) => {
      reads.push(height);
      return read(height);
    };
    await sendFromDev(a.chain, 5n);
    const produced = await a.chain.produceBlock(DEV_PRIVATE_KEY);
    await waitUntil('b to follow', () => sameHead(a, b));
    expect(b.chain.head().height).toBe(produced!.block);
    expect(reads).not.toContain(produced!.block);
  });

  // nodeStop: a block from a peer that b is importing when networking goes off is committed
  // before the stop returns, so that no block lands after it (an e2e cut a node off, read its
  // head, and saw a peer's block arrive on top of it afterwards).
  it('stops only once the block being imported is in', async () => {
    const a = await peer('127.0.0.55');
    await a.p2p.start();
    const b = await peer('127.0.0.56', { peers: [a.address()] });
    await b.p2p.start();
    await waitUntil('b to connect', () => b.p2p.connections().length === 1);
    const order: string[] = [];
    let entered = false;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const importBlock = b.chain.importBlock.bind(b.chain);
    b.chain.importBlock = async (bytes) => {
      entered = true;
      await held;
      await importBlock(bytes);
      order.push('imported');
    };
    await sendFromDev(a.chain, 5n);
    const produced = await a.chain.produceBlock(DEV_PRIVATE_KEY);
    await waitUntil('b to import the gossiped block', () => entered);
    const stopping = b.p2p.stop().then(() => order.push('stopped'));
    // Time for a stop that does not wait to end first (the order then shows it).
    await Promise.race([stopping, new Promise((r) => setTimeout(r, 500))]);
    release();
    await stopping;
    expect(order).toEqual(['imported', 'stopped']);
    expect(b.chain.head().height).toBe(produced!.block);
  });
});
