import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { createClient } from '@chain/rpc-client';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { COIN, devWallet, waitFor } from './harness/chain';
import { type Credit, creditDeposits } from './harness/exchange-back-end';
import { freePort, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

// An exchange's back end written from docs/integration.md (issue 41's done-when; its
// reorganisation is exchange-reorg.test.ts, three producers): deposit wallets in the node's key store, deposits detected by
// the one key-store push subscription and credited from the key-store reads at N confirmations,
// a kill -9 of the node in the middle, a withdrawal whose reply was lost retried with its
// reference. Every deposit is credited exactly once and the withdrawal is paid once.
const CONFIRMATIONS = 3;
const DEPOSIT_WALLETS = 8;
const DEPOSITS = 24;
const ARGS = ['--block-time', '100', '--empty-block-time', '300'];

// ---- the test around it

function outsideAddress(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

describe('an exchange back end from docs/integration.md', () => {
  it('credits every deposit once across a kill -9 and pays a retried withdrawal once', async () => {
    const datadir = await makeDatadir();
    const rpcPort = await freePort();
    const start = () => startNode({ datadir, rpcPort, args: ARGS, keepDatadir: true });
    let process: NodeProcess = await start();
    const node = createClient({
      url: process.url,
      WebSocket,
      reconnectDelayMs: 500,
      maxReconnectDelayMs: 1000,
    });
    try {
      const hot = devWallet(process);
      const wallets = new Set<string>();
      for (let i = 0; i < DEPOSIT_WALLETS; i++) {
        wallets.add((await node.wallet.newWallet({ passphrase: 'deposit' })).wallet);
      }
      const detected = new Set<string>();
      const subscription = node.subscribe('keyStoreOperations', { fromBlock: 1 }, (op) => {
        if (
          op.removed !== true &&
          op.optype === 2 &&
          op.receivers.some((r) => wallets.has(r.account))
        )
          detected.add(op.ophash.slice(8));
      });
      await subscription.ready;

      // Customers deposit; the node is killed in the middle and comes back on the same port.
      const sent = new Map<string, bigint>();
      const list = [...wallets];
      for (let i = 0; i < DEPOSITS; i++) {
        if (i === DEPOSITS / 2) {
          await process.stop('SIGKILL');
          process = await start();
        }
        // Exact amounts, as decimal strings: 0.01, 0.02, ... coins.
        const amount = BigInt(i + 1) * (COIN / 100n);
        const op = await node.operations.sendTo({
          sender: hot,
          passphrase: 'dev',
          receiver: list[i % list.length]!,
          amount: `0.${String(i + 1).padStart(2, '0')}`,
        });
        sent.set(op.ophash.slice(8), amount);
      }

      // A withdrawal whose reply is lost: the node dies right after; the retry carries its reference.
      const customer = outsideAddress();
      const withdrawal = {
        sender: hot,
        passphrase: 'dev',
        receiver: customer,
        amount: '5',
        reference: 'withdrawal-42',
      };
      const first = await node.operations.sendTo(withdrawal);
      await process.stop('SIGKILL');
      process = await start();
      const retried = await node.operations.sendTo(withdrawal);
      expect(retried.ophash.slice(8)).toBe(first.ophash.slice(8));

      // Credit at N confirmations: empty blocks keep the count going on the quiet chain.
      const credited = new Map<string, Credit>();
      await waitFor(
        'every deposit credited',
        async () => {
          await creditDeposits(node, wallets, 1, CONFIRMATIONS, credited);
          return credited.size === DEPOSITS;
        },
        60_000,
      );
      // Again from the start: nothing is credited twice.
      await creditDeposits(node, wallets, 1, CONFIRMATIONS, credited);
      expect(credited.size).toBe(DEPOSITS);
      for (const [id, amount] of sent) expect(credited.get(id)?.amount, id).toBe(amount);
      await waitFor('push to have seen every deposit', async () => detected.size === DEPOSITS);
      expect([...detected].sort()).toEqual([...sent.keys()].sort());

      const paid = await node.wallet.getWalletInfo({ wallet: customer });
      expect(BigInt(paid.balance)).toBe(5n * COIN);
      await subscription.unsubscribe();
    } finally {
      node.close();
      await process.stop();
      await rm(datadir, { recursive: true, force: true });
    }
  }, 180_000);
});
