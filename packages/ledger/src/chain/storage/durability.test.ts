import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis } from '../../genesis';
import { devWallet, makeTempDir, testWallet, transferTo } from '../../testing/temp-chain';
import { createChain } from '../chain';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Runs the submitting child until it acknowledged `count` operations, then kills it with SIGKILL. */
async function submitAndKill(dir: string, blockTimeMs: number, count: number): Promise<string[]> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@chain/source',
      '--import',
      'tsx',
      fileURLToPath(new URL('../../testing/submit-child.ts', import.meta.url)),
      dir,
      String(blockTimeMs),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const acked: string[] = [];
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (/^[0-9a-f]{64}$/.test(line)) acked.push(line);
      if (acked.length >= count) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return acked;
}

describe('durability', () => {
  it.each([
    ['a block per submission', 0],
    ['blocks every 50 ms', 50],
  ])(
    'loses no acknowledged operation on kill -9 (%s)',
    async (_label, blockTimeMs) => {
      const { dir, remove } = await makeTempDir();
      cleanups.push(remove);
      const acked = await submitAndKill(dir, blockTimeMs, 400);
      const chain = createChain({ dataDir: dir, genesis: createDevGenesis() });
      await chain.open();
      cleanups.unshift(() => chain.close());
      const missing: string[] = [];
      for (const ophash of acked) {
        if ((await chain.findOperation(ophash)).length !== 1) missing.push(ophash);
      }
      expect(missing).toEqual([]);
      // The recovered node carries on: pending operations make a valid next block.
      await chain.signAndSubmit({
        optype: 2,
        signer: devWallet.address,
        privateKey: devWallet.privateKey,
        body: transferTo(testWallet('after crash').address, 1n),
      });
      const height = chain.blockCount();
      expect((await chain.produceBlock(devWallet.privateKey))!.block).toBe(height);
    },
    60_000,
  );

  it('replays a journal record whose operations were partly mined', async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    const genesis = createDevGenesis();
    const a = createChain({ dataDir: dir, genesis });
    await a.open();
    const alice = testWallet('alice');
    // Submitted in one tick: one group-commit record.
    const sent = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        a.signAndSubmit({
          optype: 2,
          signer: devWallet.address,
          privateKey: devWallet.privateKey,
          body: transferTo(alice.address, BigInt(i + 1)),
        }),
      ),
    );
    await a.produceBlock(devWallet.privateKey, { maxOperations: 5 });
    await a.close();
    const b = createChain({ dataDir: dir, genesis });
    await b.open();
    expect(b.pendingOperations().map((o) => o.ophash)).toEqual(sent.slice(5).map((o) => o.ophash));
    await b.produceBlock(devWallet.privateKey);
    await b.close();
    const c = createChain({ dataDir: dir, genesis });
    await c.open();
    expect(c.pendingCount()).toBe(0);
    expect(c.walletInfo(alice.address).balance).toBe(String((12 * 13) / 2));
    await c.close();
  });
});
