import { describe, expect, it } from 'vitest';
import { snapChainAddress, snapChainAmount, snapChainDir } from '../snap-chain.js';
import {
  ISSUE_SCALE,
  joinMoments,
  joinParts,
  SNAP_RATIO_TARGET,
  scaleFromEnvironment,
  snapJoinFigures,
} from './snap-join.js';

const idle = { historyStart: 0, snapshot: null };
const fetching = (chunksDone: number) => ({
  historyStart: 0,
  snapshot: { height: 400, chunks: 5, chunksDone },
});
const joined = { historyStart: 400, snapshot: null };

describe('snap-join benchmark', () => {
  it('finds the moments of a snapshot join in the joiner polls', () => {
    const moments = joinMoments([
      { at: 100 },
      { at: 900, blockCount: 1, syncing: idle },
      { at: 3_000, blockCount: 1, syncing: fetching(0) },
      { at: 3_500, blockCount: 1, syncing: fetching(1) },
      { at: 4_000, blockCount: 1, syncing: fetching(5) },
      { at: 4_050, blockCount: 1, syncing: fetching(5) },
      { at: 6_000, blockCount: 401, syncing: joined },
      { at: 6_050, blockCount: 403, syncing: joined },
    ]);
    expect(moments).toEqual({
      ready: 900,
      manifest: 3_000,
      firstChunk: 3_500,
      chunks: 4_000,
      adopted: 6_000,
    });
    expect(joinParts(moments, 6_100).map((part) => part.ms)).toEqual([
      900, 2_100, 500, 500, 2_000, 100,
    ]);
  });

  it('folds a part no poll saw into the next one', () => {
    // The chunks came between two polls: no poll saw a snapshot under way.
    const moments = joinMoments([
      { at: 800, blockCount: 1, syncing: idle },
      { at: 5_000, blockCount: 401, syncing: joined },
    ]);
    expect(moments).toEqual({ ready: 800, adopted: 5_000 });
    const parts = joinParts(moments, 5_000);
    expect(parts.map((part) => part.ms)).toEqual([800, 4_200, 0]);
    expect(parts[1]!.part).toMatch(/^manifest .*; headers.*; the other chunks; check and write/);
    // A full sync never shows a snapshot: everything after start-up is one part.
    expect(joinParts(joinMoments([{ at: 700, blockCount: 1, syncing: idle }]), 9_000)).toEqual([
      { part: 'start-up (process start to RPC answering)', ms: 700 },
      { part: expect.stringMatching(/^manifest.*first reads$/), ms: 8_300 },
    ]);
  });

  it('reports the snap join against the full sync of the same run, lower is better', () => {
    const chain = {
      ...ISSUE_SCALE,
      dir: '/tmp/x',
      height: 402,
      operations: 2_002_000,
      buildSeconds: 600,
      chainBytes: 1,
    };
    const parts = [{ part: 'check and write (adoptSnapshot)', ms: 4_000 }];
    const [ratio, full, part] = snapJoinFigures(
      chain,
      { mode: 'snap', seconds: 10, moments: {}, parts },
      { mode: 'full', seconds: 150, moments: {}, parts: [] },
    );
    expect(ratio).toMatchObject({
      value: 10,
      ceiling: 150,
      ratio: 15,
      target: SNAP_RATIO_TARGET,
      pass: true,
    });
    expect(ratio!.name).toContain('2,000,000 accounts and 2,002,000 operations');
    expect(full).toMatchObject({ value: 150, unit: 's', targetOf: 'none' });
    expect(part).toMatchObject({ name: 'snap join: check and write (adoptSnapshot)', value: 4 });
  });

  it('takes the size and the cache from the environment', () => {
    expect(scaleFromEnvironment({})).toEqual(ISSUE_SCALE);
    expect(
      scaleFromEnvironment({ BENCH_SNAP_ACCOUNTS: '200000', BENCH_FIXTURE_DIR: '/tmp/f' }),
    ).toMatchObject({ accounts: 200_000, fixtureRoot: '/tmp/f', perBlock: ISSUE_SCALE.perBlock });
    // Fewer blocks than the snap distance would make the snap joiner sync every block.
    expect(() => scaleFromEnvironment({ BENCH_SNAP_ACCOUNTS: '20000' })).toThrow(/at least 55000/);
    expect(() => scaleFromEnvironment({ BENCH_SNAP_ACCOUNTS: 'many' })).toThrow();
  });

  it('names the chain of each receiver and its amount the same way every time', () => {
    expect(snapChainAddress(7)).toBe(snapChainAddress(7));
    expect(snapChainAddress(7)).not.toBe(snapChainAddress(8));
    expect(snapChainAddress(0)).toMatch(/^CH[0-9a-f]{46}$/);
    expect(snapChainAmount(0)).toBe(1_000n);
    expect(snapChainAmount(998)).toBe(1_001n);
    expect(snapChainDir({ accounts: 10, perBlock: 5, senders: 2 }, '/r')).toMatch(
      /^\/r\/snap-v\d+-10a-5pb-2s$/,
    );
  });
});
