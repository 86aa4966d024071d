import { rm } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { ERROR_CODES } from '@chain/spec';
import { describe, expect, it } from 'vitest';
import { COIN, devWallet, type OperationObject, type WalletInfo, waitFor } from './harness/chain';
import { exitWithin, startArmed } from './harness/crash-switch';
import { call, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

// Withdrawals safe to retry (issue 41): a sendTo whose reply was lost, sent again with its
// `reference`, pays once, whether the node died before the operation reached its journal, just
// after, or after the reply; the same reference with another amount is refused.
const ARGS = ['--block-time', '100'];

function receiver(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

function withdraw(node: NodeProcess, to: string, amount: string, reference: string) {
  return call<OperationObject>(node.url, 'sendTo', {
    sender: devWallet(node),
    passphrase: 'dev',
    receiver: to,
    amount,
    reference,
  });
}

/** The digest part of an ophash (its last 20 bytes): the same operation, pending or mined. */
function digest(ophash: string): string {
  return ophash.slice(-40).toLowerCase();
}

async function minedBalance(node: NodeProcess, wallet: string): Promise<bigint> {
  await waitFor(
    'the pool to be mined',
    async () => (await call<number>(node.url, 'getPendingCount')) === 0,
    20_000,
  );
  return BigInt((await call<WalletInfo>(node.url, 'getWalletInfo', { wallet })).balance);
}

describe('sendTo with a reference across kill -9', () => {
  it('returns the first operation after a kill -9 that followed the reply, and refuses another amount', async () => {
    const datadir = await makeDatadir();
    let node = await startNode({ datadir, args: ARGS });
    const to = receiver();
    try {
      const first = await withdraw(node, to, '5', 'order-1001');
      await node.stop('SIGKILL');
      node = await startNode({ datadir, args: ARGS });
      const again = await withdraw(node, to, '5', 'order-1001');
      expect(digest(again.ophash)).toBe(digest(first.ophash));
      expect(await minedBalance(node, to)).toBe(5n * COIN);
      const mined = await withdraw(node, to, '5', 'order-1001');
      expect(mined.block).toBeGreaterThan(0);
      expect(digest(mined.ophash)).toBe(digest(first.ophash));
      await expect(withdraw(node, to, '6', 'order-1001')).rejects.toMatchObject({
        code: ERROR_CODES.DUPLICATE_OPERATION,
        data: { reason: 'REFERENCE_REUSED', param: 'reference' },
      });
      expect(await minedBalance(node, to)).toBe(5n * COIN);
    } finally {
      await node.stop();
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('pays once when the node dies at the write points of the send (reply lost)', async () => {
    // The ledger's crash switch kills the node at its k-th storage write: the first k that does not
    // kill it while starting is the send's journal write (before it, or with `after` just after).
    const lost: string[] = [];
    for (let write = 1; write <= 12 && lost.length < 3; write++) {
      for (const after of [false, true]) {
        if (lost.length >= 3) break;
        const datadir = await makeDatadir();
        const to = receiver();
        try {
          const armed = await startArmed({ write, after }, { datadir, args: ARGS });
          if (armed === 'died-starting') continue;
          let reply: OperationObject | undefined;
          try {
            reply = await withdraw(armed, to, '5', 'order-2002');
          } catch {
            // the node died during the call: the reply was lost
          }
          const died = await exitWithin(armed, 3000);
          if (!died) await armed.stop('SIGKILL');
          if (reply === undefined) lost.push(`${write}${after ? ':after' : ''}`);
          const node = await startNode({ datadir, args: ARGS });
          try {
            const retried = await withdraw(node, to, '5', 'order-2002');
            if (reply !== undefined) expect(digest(retried.ophash)).toBe(digest(reply.ophash));
            expect(await minedBalance(node, to)).toBe(5n * COIN);
            expect(digest((await withdraw(node, to, '5', 'order-2002')).ophash)).toBe(
              digest(retried.ophash),
            );
            const dev = await call<WalletInfo>(node.url, 'getWalletInfo', {
              wallet: devWallet(node),
            });
            expect(dev.n_operation, `crash at ${write}${after ? ':after' : ''}`).toBe(1);
          } finally {
            await node.stop();
          }
        } finally {
          await rm(datadir, { recursive: true, force: true });
        }
      }
    }
    // At least the kill before the journal write and the one just after it lost the reply.
    expect(
      lost.length,
      `crash points that lost the reply: ${lost.join(', ')}`,
    ).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
