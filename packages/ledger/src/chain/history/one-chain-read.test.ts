import { describe, expect, it } from 'vitest';
import { TaskQueue } from '../chain-records';
import { type RollbackSeen, readOneChain } from './one-chain-read';

/** A core whose rollback, run as its task, bumps the counter around its write as the chain's does. */
function fakeCore() {
  const core: RollbackSeen & { rollback(): Promise<void> } = {
    rollbacks: 0,
    tasks: new TaskQueue(),
    rollback() {
      return core.tasks.run(async () => {
        core.rollbacks++;
        await Promise.resolve();
        core.rollbacks++;
      });
    },
  };
  return core;
}

describe('readOneChain', () => {
  it('returns a read no rollback ran beside, read once', async () => {
    const core = fakeCore();
    let reads = 0;
    expect(await readOneChain(core, async () => ++reads)).toBe(1);
    expect(reads).toBe(1);
  });

  it('reads again when a rollback ran during the read, and returns the second', async () => {
    const core = fakeCore();
    let reads = 0;
    const result = await readOneChain(core, async () => {
      reads++;
      if (reads === 1) await core.rollback();
      return reads;
    });
    expect(result).toBe(2);
  });

  it('does not surface the failure of a torn read (a block taken away under it)', async () => {
    const core = fakeCore();
    let reads = 0;
    const result = await readOneChain(core, async () => {
      reads++;
      if (reads === 1) {
        await core.rollback();
        throw new Error('block 5 is missing');
      }
      return 'page';
    });
    expect(result).toBe('page');
  });

  it('throws the failure of a read no rollback ran beside', async () => {
    const core = fakeCore();
    await expect(
      readOneChain(core, async () => {
        throw new Error('bad cursor');
      }),
    ).rejects.toThrow('bad cursor');
  });

  it('does not trust a read begun while a rollback was writing', async () => {
    const core = fakeCore();
    core.rollbacks = 1; // a rollback's batch is being written
    const finishing = core.tasks.run(async () => {
      core.rollbacks++;
    });
    let reads = 0;
    const result = await readOneChain(core, async () => ++reads);
    await finishing;
    expect(result).toBe(2);
  });

  it('runs the read among the chain tasks once reads were torn twice, so no rollback overlaps it', async () => {
    const core = fakeCore();
    let reads = 0;
    const order: string[] = [];
    const result = await readOneChain(core, async () => {
      reads++;
      if (reads <= 2) {
        void core.rollback().then(() => order.push('rollback'));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return reads;
      }
      order.push('read');
      void core.rollback().then(() => order.push('rollback after'));
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push('read ends');
      return reads;
    });
    await core.tasks.idle();
    expect(result).toBe(3);
    expect(order).toEqual(['rollback', 'rollback', 'read', 'read ends', 'rollback after']);
  });
});
