import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTempChain,
  produceTransferBlocks,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import type { Chain, ImportedBlock } from '../chain';
import { IMPORT_WINDOW } from './import-run';

/** More blocks than one window holds, so that the source is read as the window empties. */
const BLOCKS = IMPORT_WINDOW + 8;

describe('importBlocks', () => {
  const opened: TempChain[] = [];
  let blocks: Uint8Array[];

  beforeAll(async () => {
    const producer = await openTempChain();
    opened.push(producer);
    blocks = await produceTransferBlocks(producer.chain, BLOCKS, testWallet('receiver').address);
  });
  afterAll(async () => {
    while (opened.length > 0) await opened.pop()!.cleanup();
  });

  async function follower(): Promise<Chain> {
    const temp = await openTempChain();
    opened.push(temp);
    return temp.chain;
  }

  it('imports an async source in order, reporting each block, reading it only as the window empties', async () => {
    const chain = await follower();
    let pulled = 0;
    const ahead: number[] = [];
    async function* source(): AsyncGenerator<Uint8Array> {
      for (const bytes of blocks) {
        pulled++;
        yield bytes;
      }
    }
    const seen: ImportedBlock[] = [];
    const run = await chain.importBlocks(source(), {
      onImported: (block) => {
        seen.push(block);
        ahead.push(pulled - seen.length);
      },
    });
    expect(run).toEqual({ imported: BLOCKS });
    expect(seen.map((b) => b.index)).toEqual(blocks.map((_, i) => i));
    expect(seen.map((b) => b.height)).toEqual(blocks.map((_, i) => i + 1));
    expect(seen.every((b, i) => b.bytes === blocks[i])).toBe(true);
    // At most a window in flight, and one more taken from the source, waiting for room.
    expect(Math.max(...ahead)).toBeLessThanOrEqual(IMPORT_WINDOW + 1);
    expect(Math.max(...ahead)).toBeGreaterThan(1);
    expect(chain.head().hash).toEqual(chain.inspectBlock(blocks.at(-1)!).hash);
  });

  it('ends at the first block refused, naming it, the blocks before it kept', async () => {
    const chain = await follower();
    const damaged = Uint8Array.from(blocks[5]!);
    damaged[damaged.length - 1]! ^= 1;
    let closed = false;
    function* source(): Generator<Uint8Array> {
      try {
        yield* blocks.slice(0, 5);
        yield damaged;
        yield* blocks.slice(6);
      } finally {
        closed = true;
      }
    }
    const run = await chain.importBlocks(source());
    expect(run.imported).toBe(5);
    expect(run.refused?.index).toBe(5);
    expect(run.refused?.bytes).toBe(damaged);
    expect(run.refused?.error).toMatchObject({ code: 1003 });
    expect(chain.blockCount()).toBe(6);
    expect(chain.head().hash).toEqual(chain.inspectBlock(blocks[4]!).hash);
    // The source is told the run ended (a generator's finally runs).
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
    // The chain goes on from there: the rest imports.
    expect(await chain.importBlocks(blocks.slice(5))).toEqual({ imported: BLOCKS - 5 });
  });

  it("rejects with the source's own error, once the blocks taken before it are imported", async () => {
    const chain = await follower();
    async function* source(): AsyncGenerator<Uint8Array> {
      yield* blocks.slice(0, 3);
      throw new Error('the file changed');
    }
    await expect(chain.importBlocks(source())).rejects.toThrow('the file changed');
    expect(chain.blockCount()).toBe(4);
  });
});
