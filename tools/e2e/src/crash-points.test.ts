import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { describe, expect, it } from 'vitest';
import { callBatch } from './harness/batch-call';
import { COIN, devWallet, type OperationObject, type WalletInfo, waitFor } from './harness/chain';
import { type CrashPoint, exitWithin, seededRandom, startArmed } from './harness/crash-switch';
import { call, makeDatadir, type NodeProcess, startNode } from './harness/node-process';
import { compareWithReplay } from './harness/replay';

// Crash consistency in the style of Bitcoin Core's feature_dbcrash: the node is killed (SIGKILL,
// by the ledger's test-only crash switch) at random storage write points, under load and while it
// recovers from the previous crash. After every crash a clean restart must show complete blocks,
// every acknowledged operation, and balances that add up, and the stored state must equal a clean
// replay of the stored blocks. CRASH_RUNS and CRASH_SEED make longer or repeated runs.
const RUNS = Number(process.env.CRASH_RUNS ?? 10);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
/** Write points under load come fast (group commits, blocks): k in [1, MAX_WRITE_POINT]. */
const MAX_WRITE_POINT = 60;
const ARGS = ['--block-time', '50'];
const LOAD_CLIENTS = 6;

interface Acknowledged {
  ophash: string;
  receiver: string;
}

interface RunRecord {
  point: string;
  died: 'starting' | 'under load' | 'not reached';
  recoveryPoint?: string;
  recoveryDied?: 'starting' | 'recovering' | 'not reached';
}

/** Transfers of 1 coin from the dev wallet until the node dies (or `limitMs` passes). */
async function transferUntilDeath(
  node: NodeProcess,
  receivers: readonly string[],
  acknowledged: Acknowledged[],
  limitMs: number,
): Promise<boolean> {
  const sender = devWallet(node);
  const deadline = Date.now() + limitMs;
  const clients = Array.from({ length: LOAD_CLIENTS }, async (_, client) => {
    for (let i = 0; Date.now() < deadline; i++) {
      const receiver = receivers[(client + i) % receivers.length]!;
      try {
        const op = await call<OperationObject>(node.url, 'sendTo', {
          sender,
          passphrase: 'dev',
          receiver,
          amount: '1',
        });
        acknowledged.push({ ophash: op.ophash, receiver });
      } catch {
        return; // the node died during the call: it was never acknowledged
      }
    }
  });
  await Promise.all(clients);
  return exitWithin(node, 1000);
}

/**
 * What a clean restart must show: every block complete and linked to its parent, every acknowledged
 * operation mined exactly where findOperation says, and each receiver's balance equal to the
 * transfers to it that the blocks hold.
 */
async function verifyRecovered(
  node: NodeProcess,
  receivers: readonly string[],
  acknowledged: readonly Acknowledged[],
): Promise<{ blocks: number; transfers: number }> {
  await waitFor(
    'the recovered pool to be mined',
    async () => (await call<number>(node.url, 'getPendingCount')) === 0,
    20_000,
  );
  const found = await callBatch<OperationObject[]>(
    node.url,
    acknowledged.map(({ ophash }) => ({ method: 'findOperation', params: { ophash } })),
  );
  found.forEach((ops, i) => {
    expect(ops, `acknowledged ${acknowledged[i]!.ophash}`).toHaveLength(1);
    expect(ops[0]!.block, `acknowledged ${acknowledged[i]!.ophash}`).toBeGreaterThan(0);
  });

  const count = await call<number>(node.url, 'getBlockCount');
  const heights = Array.from({ length: count }, (_, block) => ({ block }));
  const infos = await callBatch<{
    block: number;
    hash: string;
    one_hash: string;
    operations: number;
  }>(
    node.url,
    heights.map((params) => ({ method: 'getBlockInfo', params })),
  );
  const blockOps = await callBatch<OperationObject[]>(
    node.url,
    heights.map((params) => ({ method: 'getBlockOperations', params })),
  );
  const received = new Map<string, bigint>();
  let transfers = 0;
  for (let height = 0; height < count; height++) {
    const info = infos[height]!;
    expect(info.block).toBe(height);
    expect(blockOps[height], `block ${height}`).toHaveLength(info.operations);
    if (height > 0) expect(info.one_hash, `block ${height} parent`).toBe(infos[height - 1]!.hash);
    for (const op of blockOps[height]!) {
      if (op.optype !== 2) continue;
      transfers++;
      const to = op.receivers[0]!.account;
      received.set(to, (received.get(to) ?? 0n) + BigInt(op.amount));
    }
  }
  const infosByReceiver = await callBatch<WalletInfo>(
    node.url,
    receivers.map((wallet) => ({ method: 'getWalletInfo', params: { wallet } })),
  );
  receivers.forEach((receiver, i) => {
    expect(BigInt(infosByReceiver[i]!.balance), receiver).toBe(received.get(receiver) ?? 0n);
    const acked = BigInt(acknowledged.filter((a) => a.receiver === receiver).length) * COIN;
    expect(BigInt(infosByReceiver[i]!.balance) >= acked, receiver).toBe(true);
  });
  return { blocks: count, transfers };
}

describe('crash points (feature_dbcrash style)', () => {
  it(
    `keeps every acknowledged operation through ${RUNS} crashes at random write points (seed ${SEED})`,
    async () => {
      const random = seededRandom(SEED);
      const datadir = await makeDatadir();
      const receivers = Array.from({ length: 3 }, () =>
        addressFromPublicKey('CH', getPublicKey(randomPrivateKey())),
      );
      const acknowledged: Acknowledged[] = [];
      const runs: RunRecord[] = [];
      const randomPoint = (max: number): CrashPoint => ({
        write: 1 + random(max),
        after: random(2) === 1,
      });
      const describePoint = (p: CrashPoint) => `${p.write}${p.after ? ':after' : ''}`;
      let last = { blocks: 0, transfers: 0 };
      let replay = { blocks: 0, accounts: 0, differences: [] as string[] };
      try {
        for (let run = 0; run < RUNS; run++) {
          // 1. Crash under load (or while starting, for the smallest points on a fresh directory).
          const point = randomPoint(MAX_WRITE_POINT);
          const record: RunRecord = { point: describePoint(point), died: 'starting' };
          runs.push(record);
          const armed = await startArmed(point, { datadir, args: ARGS });
          if (armed !== 'died-starting') {
            const died = await transferUntilDeath(armed, receivers, acknowledged, 8_000);
            record.died = died ? 'under load' : 'not reached';
            if (!died) await armed.stop('SIGKILL');
          }

          // 2. Every other run, crash again while the node recovers: the first writes after a restart
          //    re-admit and mine the journaled operations.
          if (run % 2 === 1) {
            const recovery = randomPoint(1); // the first write after the restart
            record.recoveryPoint = describePoint(recovery);
            const recovering = await startArmed(recovery, { datadir, args: ARGS });
            if (recovering === 'died-starting') record.recoveryDied = 'starting';
            else {
              const died = await exitWithin(recovering, 1500);
              record.recoveryDied = died ? 'recovering' : 'not reached';
              if (!died) await recovering.stop('SIGKILL');
            }
          }

          // 3. A clean restart shows everything acknowledged so far, in complete blocks.
          const clean = await startNode({ datadir, args: ARGS });
          try {
            last = await verifyRecovered(clean, receivers, acknowledged);
          } catch (error) {
            throw new Error(
              `run ${run} (seed ${SEED}, runs ${JSON.stringify(runs)}): ${(error as Error).message}`,
            );
          } finally {
            await clean.stop();
          }

          // 4. The stored state equals a clean replay of the stored blocks.
          replay = await compareWithReplay(datadir);
          expect(replay.differences, `run ${run} (seed ${SEED})`).toEqual([]);
          expect(replay.blocks).toBe(last.blocks);
        }
        console.log(
          `crash points: ${RUNS} runs (seed ${SEED}), ${runs.filter((r) => r.died !== 'not reached').length} crashes at write points under load or start, ` +
            `${runs.filter((r) => r.recoveryDied === 'recovering' || r.recoveryDied === 'starting').length} during recovery; ` +
            `${acknowledged.length} acknowledged transfers, none lost; ${last.transfers} transfers in ${replay.blocks} blocks, ` +
            `${replay.accounts} accounts equal to a clean replay. Points: ${runs
              .map(
                (r) =>
                  `${r.point}/${r.died}${r.recoveryPoint ? ` then ${r.recoveryPoint}/${r.recoveryDied}` : ''}`,
              )
              .join(', ')}`,
        );
        expect(acknowledged.length).toBeGreaterThan(0);
      } finally {
        await rm(datadir, { recursive: true, force: true });
      }
    },
    Math.max(180_000, RUNS * 12_000),
  );
});
