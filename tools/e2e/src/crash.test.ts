import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { describe, expect, it } from 'vitest';
import { COIN, devWallet, type OperationObject, type WalletInfo, waitFor } from './harness/chain';
import { call, makeDatadir, startNode } from './harness/node-process';

// kill -9 while the node accepts transfers: after a restart every acknowledged operation is on chain
// or pending, the balances add up, and every block reads.
describe('crash consistency', () => {
  it('loses nothing acknowledged when killed with SIGKILL under load', async () => {
    const datadir = await makeDatadir();
    const args = ['--block-time', '150'];
    let node = await startNode({ datadir, args });
    const dev = devWallet(node);
    const receivers = Array.from({ length: 4 }, () =>
      addressFromPublicKey('CH', getPublicKey(randomPrivateKey())),
    );
    const acknowledged: Array<{ ophash: string; receiver: string }> = [];

    let sending = true;
    const clients = Array.from({ length: 8 }, async (_, client) => {
      for (let i = 0; sending; i++) {
        const receiver = receivers[(client + i) % receivers.length]!;
        try {
          const op = await call<OperationObject>(node.url, 'sendTo', {
            sender: dev,
            passphrase: 'dev',
            receiver,
            amount: '1',
          });
          acknowledged.push({ ophash: op.ophash, receiver });
        } catch {
          return; // the node died mid-request: that call was never acknowledged
        }
      }
    });
    await waitFor(
      'some blocks under load',
      async () => acknowledged.length > 150 && (await call<number>(node.url, 'getBlockCount')) > 3,
    );
    await node.stop('SIGKILL');
    sending = false;
    await Promise.all(clients);

    node = await startNode({ datadir, args });
    try {
      for (const { ophash } of acknowledged) {
        const found = await call<OperationObject[]>(node.url, 'findOperation', { ophash });
        expect(found, ophash).toHaveLength(1);
      }
      await waitFor(
        'the pool to drain',
        async () => (await call<number>(node.url, 'getPendingCount')) === 0,
        30_000,
      );
      for (const receiver of receivers) {
        const expected = BigInt(acknowledged.filter((a) => a.receiver === receiver).length) * COIN;
        const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver });
        // At least what was acknowledged: a transfer mined but not yet acknowledged at the kill also counts.
        expect(BigInt(info.balance) >= expected, receiver).toBe(true);
      }
      const count = await call<number>(node.url, 'getBlockCount');
      let mined = 0;
      for (let block = 0; block < count; block++) {
        const info = await call<{ block: number; operations: number }>(node.url, 'getBlockInfo', {
          block,
        });
        expect(info.block).toBe(block);
        mined += info.operations;
        expect(await call<unknown[]>(node.url, 'getBlockOperations', { block })).toHaveLength(
          info.operations,
        );
      }
      const total = receivers.length === 0 ? 0n : await sumBalances(node.url, receivers);
      expect(total).toBe(BigInt(mined) * COIN);
    } finally {
      await node.stop();
      await rm(datadir, { recursive: true, force: true });
    }
  });
});

async function sumBalances(url: string, wallets: string[]): Promise<bigint> {
  let total = 0n;
  for (const wallet of wallets)
    total += BigInt((await call<WalletInfo>(url, 'getWalletInfo', { wallet })).balance);
  return total;
}
