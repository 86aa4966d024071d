import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { type ChainClient, createClient } from '@chain/rpc-client';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { COIN, devWallet, waitFor } from './harness/chain';
import { freePort, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

// An exchange's back end written from docs/integration.md (issue 41's done-when, without its
// reorganisation: see the report): deposit wallets in the node's key store, deposits detected by
// the one key-store push subscription and credited from the key-store reads at N confirmations,
// a kill -9 of the node in the middle, a withdrawal whose reply was lost retried with its
// reference. Every deposit is credited exactly once and the withdrawal is paid once.
const CONFIRMATIONS = 3;
const DEPOSIT_WALLETS = 8;
const DEPOSITS = 24;
const ARGS = ['--block-time', '100', '--empty-block-time', '300'];

// ---- docs/integration.md, "Deposits": the back end's own code, as the guide shows it.

interface Credit {
  wallet: string;
  amount: bigint;
  block: number;
}

/**
 * Credits every deposit to one of `wallets` with at least `confirmations`, once (by ophash), from
 * `fromBlock` on: start from the block of the last deposit credited; reading again is harmless.
 */
async function creditDeposits(
  node: ChainClient,
  wallets: ReadonlySet<string>,
  fromBlock: number,
  confirmations: number,
  credited: Map<string, Credit>,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await node.wallet.getKeyStoreOperations({
      fromBlock,
      max: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const op of page.operations) {
      if (op.confirmations < confirmations) return; // oldest first: the rest are younger
      if (op.optype !== 2) continue; // coins only: a token's amount is in the token's units
      // The ophash without its block number names the operation in whichever block it is.
      const id = op.ophash.slice(8);
      for (const receiver of op.receivers) {
        if (wallets.has(receiver.account) && !credited.has(id)) {
          credited.set(id, {
            wallet: receiver.account,
            amount: BigInt(op.amount),
            block: op.block,
          });
        }
      }
    }
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
}

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
