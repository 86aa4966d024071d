import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { callBatch } from './harness/batch-call';
import { COIN, devWallet, waitFor } from './harness/chain';
import { call, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

/**
 * A node whose state is far larger than its state cache, on a small heap budget: the accounts live
 * on disk, every read and write finds them there, the node keeps serving under load, and a restart
 * reads nothing per account. A 1 MB cache holds about a thousand decoded accounts; the state here
 * has several thousand, read and written in random order.
 */
const ACCOUNTS = 4_000;
const ARGS = ['--block-time', '100', '--state-cache-mb', '1', '--max-heap-mb', '128'];

const randomAddress = () => addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));

describe('the state on disk behind a small cache', () => {
  const datadirs: string[] = [];
  let node: NodeProcess | undefined;
  afterAll(async () => {
    await node?.stop();
    for (const dir of datadirs) await rm(dir, { recursive: true, force: true });
  });

  it('serves a state larger than its cache under load, exactly, and after a restart', async () => {
    const datadir = await makeDatadir();
    datadirs.push(datadir);
    node = await startNode({ datadir, args: ARGS, keepDatadir: true });
    const dev = devWallet(node);
    const wallets = Array.from({ length: ACCOUNTS }, randomAddress);
    // Each wallet gets an amount of its own (its index + 1 coins), so a read of the wrong account
    // or a stale one is caught.
    const expected = new Map(wallets.map((wallet, i) => [wallet, BigInt(i + 1) * COIN]));
    await callBatch(
      node.url,
      wallets.map((receiver, i) => ({
        method: 'sendTo',
        params: { sender: dev, passphrase: 'dev', receiver, amount: String(i + 1) },
      })),
      200,
    );
    await waitFor(
      'the payments mined',
      async () => (await call<number>(node!.url, 'getPendingCount')) === 0,
    );

    // Under load: a second payment to every other wallet in random order, while the wallets are
    // read in another random order.
    const order = [...wallets].sort(() => Math.random() - 0.5);
    const paid = order.filter((_, i) => i % 2 === 0);
    const writes = callBatch(
      node.url,
      paid.map((receiver) => ({
        method: 'sendTo',
        params: { sender: dev, passphrase: 'dev', receiver, amount: '1000' },
      })),
      100,
    );
    const reads = callBatch<{ balance: string }>(
      node.url,
      [...wallets].reverse().map((wallet) => ({ method: 'getWalletInfo', params: { wallet } })),
      100,
    );
    const [, during] = await Promise.all([writes, reads]);
    // A read during the payments sees the first amount, or the first plus the second: never
    // another account's.
    [...wallets].reverse().forEach((wallet, i) => {
      const first = expected.get(wallet)!;
      expect([first, first + 1000n * COIN]).toContain(BigInt(during[i]!.balance));
    });
    for (const wallet of paid) expected.set(wallet, expected.get(wallet)! + 1000n * COIN);
    await waitFor(
      'the payments mined',
      async () => (await call<number>(node!.url, 'getPendingCount')) === 0,
    );

    const check = async () => {
      const infos = await callBatch<{ balance: string }>(
        node!.url,
        wallets.map((wallet) => ({ method: 'getWalletInfo', params: { wallet } })),
        200,
      );
      wallets.forEach((wallet, i) => {
        expect(BigInt(infos[i]!.balance)).toBe(expected.get(wallet));
      });
    };
    await check();

    expect(await node.stop()).toBe(0);
    node = await startNode({ datadir, args: ARGS, keepDatadir: true });
    await check();
  }, 180_000);
});
