import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { COIN, devWallet, type OperationObject, waitFor } from './harness/chain';
import { call, startNode } from './harness/node-process';

/** A data directory on its own small tmpfs (root only), so that the disk fills up for real. */
async function smallDisk(sizeMb: number): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'chain-e2e-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
    return dir;
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** The process's exit code (or signal), once it exits by itself. */
function exitOf(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.exitCode ?? child.signalCode!);
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
}

const disk = await smallDisk(2);
afterAll(async () => {
  if (disk === undefined) return;
  execFileSync('umount', [disk]);
  await rm(disk, { recursive: true, force: true });
});

// A full disk under load: the node stops (exit code 1, a fatal record saying why) instead of
// answering from a state the disk does not hold; restarted with room, it has every operation it
// acknowledged.
describe.skipIf(disk === undefined)('a full disk', () => {
  it('stops the node, which loses nothing it acknowledged and resumes once there is room', async () => {
    const datadir = disk!;
    const args = ['--block-time', '150'];
    let node = await startNode({ datadir, args });
    const dev = devWallet(node);
    const receiver = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
    const acknowledged: string[] = [];
    const clients = Array.from({ length: 8 }, async () => {
      for (;;) {
        try {
          const op = await call<OperationObject>(node.url, 'sendTo', {
            sender: dev,
            passphrase: 'dev',
            receiver,
            amount: '1',
            payload: 'ab'.repeat(255),
          });
          acknowledged.push(op.ophash);
        } catch {
          return; // refused (the disk is full) or the node is gone: not acknowledged
        }
      }
    });
    const exitCode = await Promise.race([
      exitOf(node.child),
      new Promise((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000)),
    ]);
    await Promise.all(clients);
    expect(exitCode).toBe(1);
    expect(node.stdout()).toContain('a write to the chain database failed');
    expect(node.stdout()).toMatch(/No space left on device|ENOSPC/);
    expect(acknowledged.length).toBeGreaterThan(0);

    execFileSync('mount', ['-o', 'remount,size=64m', datadir]);
    node = await startNode({ datadir, args });
    try {
      for (const ophash of acknowledged) {
        const found = await call<OperationObject[]>(node.url, 'findOperation', { ophash });
        expect(found, ophash).toHaveLength(1);
      }
      await waitFor(
        'the acknowledged operations to be mined',
        async () => (await call<number>(node.url, 'getPendingCount')) === 0,
        30_000,
      );
      const balance = await call<{ balance: string }>(node.url, 'getWalletInfo', {
        wallet: receiver,
      });
      // 1 coin each; a transfer mined but not yet acknowledged when the disk filled counts too.
      expect(BigInt(balance.balance) >= BigInt(acknowledged.length) * COIN).toBe(true);
    } finally {
      await node.stop();
    }
  });
});
