import { describe, expect, it } from 'vitest';
import blockImport, {
  ALL_CORES_TARGET,
  importPreparedChain,
  ONE_CORE_TARGET,
  prepareTransferChain,
  RecordingLattice,
  ReplayLattice,
} from './block-import.js';

const SMALL = { transfers: 600, signers: 20, receivers: 40, operationsPerBlock: 200 };

describe('block-import benchmark', () => {
  it('prepares a chain of transfers from many signers that a fresh chain imports to the same state', async () => {
    const prepared = await prepareTransferChain(SMALL);

    // Funding, activation, then 600 transfers in blocks of 200.
    expect(prepared.setupBlocks).toBe(2);
    expect(prepared.blocks).toHaveLength(2 + 3);
    expect(prepared.transfers).toBe(600);
    expect(prepared.blockTransfers).toEqual([200, 200, 200]);
    const run = await importPreparedChain(prepared);
    expect(Buffer.from(run.stateRoot).equals(prepared.stateRoot)).toBe(true);
    expect(run.opsPerSec).toBeCloseTo(600 / run.seconds, 6);
    expect(run.coresBusy).toBeGreaterThan(0);
    // Warm-up blocks are imported, not timed.
    const warm = await importPreparedChain(prepared, { warmUpBlocks: 2 });
    expect(Buffer.from(warm.stateRoot).equals(prepared.stateRoot)).toBe(true);
    expect(warm.transfers).toBe(200);
    expect(warm.opsPerSec).toBeCloseTo(200 / warm.seconds, 6);
    await expect(importPreparedChain(prepared, { warmUpBlocks: 3 })).rejects.toThrow(
      /no transfer block/,
    );
  });

  it('imports again with the recorded state vectors replayed, and fails when they run out', async () => {
    const prepared = await prepareTransferChain(SMALL);
    const recording = new RecordingLattice();
    const run = await importPreparedChain(prepared, { stateLattice: recording });
    expect(Buffer.from(run.stateRoot).equals(prepared.stateRoot)).toBe(true);
    // Block 0 and the 5 imported.
    expect(recording.vectors).toHaveLength(6);
    const replayed = await importPreparedChain(prepared, {
      stateLattice: new ReplayLattice(recording.vectors),
    });
    expect(Buffer.from(replayed.stateRoot).equals(prepared.stateRoot)).toBe(true);
    await expect(
      importPreparedChain(prepared, {
        stateLattice: new ReplayLattice(recording.vectors.slice(0, 4)),
      }),
    ).rejects.toThrow(/no recorded state vector/);
  });

  it('fails on a damaged block rather than reporting a rate', async () => {
    const prepared = await prepareTransferChain(SMALL);
    const last = prepared.blocks.at(-1)!.slice();
    // The last byte of the block is the last byte of its last operation's signature.
    last[last.length - 1]! ^= 1;

    await expect(
      importPreparedChain({ ...prepared, blocks: [...prepared.blocks.slice(0, -1), last] }),
    ).rejects.toMatchObject({ reason: 'BAD_OPERATIONS_ROOT' });
  });

  it('names its figures and ceilings', () => {
    expect(blockImport.name).toBe('block-import');
    expect([ONE_CORE_TARGET, ALL_CORES_TARGET]).toEqual([0.5, 0.7]);
  });
});
