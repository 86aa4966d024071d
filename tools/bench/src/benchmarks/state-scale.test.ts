import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { measureStateScale, RSS_BOUND_MB, STARTUP_BOUND_SEC } from './state-scale.js';

describe('state-scale benchmark', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('builds both fixtures, measures a node on each and reports the large one against the small', async () => {
    root = await mkdtemp(join(tmpdir(), 'chain-bench-state-scale-test-'));
    const logs: string[] = [];
    const figures = await measureStateScale(
      { durationSec: 1, warmupSec: 0, connections: 1, log: (message) => logs.push(message) },
      {
        accounts: 20_000,
        baseline: 2_000,
        sendToSec: 2,
        executeRawOperations: 1_600,
        signers: 8,
        readSec: 1,
        receivers: 1_001,
        randomWallets: 4_001,
        holders: 5_000,
        tokenReadSec: 1,
        sendTokenSec: 1,
        import: { senders: 20, perBlock: 200, warmUpBlocks: 1, timedBlocks: 3, runs: 2 },
        fixtureRoot: root,
      },
    );

    expect(figures.map((figure) => figure.name)).toEqual([
      'start-up to ready, 20,000 accounts',
      'peak node RSS under sendTo load, 20,000 accounts, default flags: its own (anonymous) memory',
      "peak node RSS under sendTo load, 20,000 accounts, with LevelDB's mapped table files",
      'sendTo to random existing receivers, 20,000 accounts',
      'excuteRaw (20 per call) to random existing receivers, 20,000 accounts',
      'getWalletInfo of random wallets (cache misses), 20,000 accounts',
      'getWalletInfo of random wallets (cache misses) vs result-cache replays, 20,000 accounts',
      'bytes on disk per account, 20,000 accounts',
      'block import, transfers to random existing accounts, 20,000 accounts',
      'holderToken, a page of 100 after a random holder, token of 5,001 holders, 20,000 accounts',
      'infoToken, token of 5,001 holders, 20,000 accounts',
      'sendToken to random holders, token of 5,001 holders, 20,000 accounts',
    ]);
    const [
      startup,
      rss,
      ,
      sendTo,
      executeRaw,
      reads,
      ,
      bytes,
      blockImport,
      pages,
      info,
      sendToken,
    ] = figures;
    expect(startup).toMatchObject({ unit: 's', target: STARTUP_BOUND_SEC, targetOf: 'max' });
    expect(startup!.value).toBeGreaterThan(0.05);
    expect(rss).toMatchObject({ unit: 'MB', target: RSS_BOUND_MB, targetOf: 'max' });
    expect(rss!.value).toBeGreaterThan(50);
    for (const rate of [sendTo!, executeRaw!, reads!, blockImport!, pages!, info!, sendToken!]) {
      expect(rate.value).toBeGreaterThan(0);
      expect(rate.ceiling).toBeGreaterThan(0);
      expect(rate.ratio).toBeCloseTo(rate.value / rate.ceiling, 9);
    }
    expect(sendTo!.ceilingName).toBe('the same at 2,000 accounts');
    expect(blockImport!.target).toBe(0.7);
    expect(pages!.ceilingName).toBe('holderToken of a token of 101 holders, same node');
    // The small fixture's token: the dev wallet and its 1,999 synthetic accounts.
    expect(sendToken!.ceilingName).toBe('the same at 2,000 accounts (token of 2,000 holders)');
    // An account and its index entry hold about 75 raw bytes; LevelDB adds little to them.
    expect(bytes!.ceiling).toBeGreaterThan(50);
    expect(bytes!.value).toBeGreaterThan(bytes!.ceiling / 4);
    expect(bytes!.value).toBeLessThan(bytes!.ceiling * 10);
    // The fixtures were checked by the node itself (--verify-state) when built.
    expect(logs.filter((line) => /fixture: built and checked/.test(line))).toHaveLength(2);
    expect(logs.filter((line) => /block import \d+ transfers\/s/.test(line))).toHaveLength(4);
  }, 300_000);
});
