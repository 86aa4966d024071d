import {
  addressFromPublicKey,
  encodePrivateKey,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

// A new address activates itself for free, which makes an account without cost: at most 32 per
// block (MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK), pending ones included.
const LIMIT = 32;
let node: NodeProcess;

function freshWallet(): { wallet: string; private: string } {
  const key = randomPrivateKey();
  return { wallet: addressFromPublicKey('CH', getPublicKey(key)), private: encodePrivateKey(key) };
}

beforeAll(async () => {
  // One block right away, then none for a minute: the rest of the test stays in one pending block.
  node = await startNode({ args: ['--block-time', '60000'] });
});

afterAll(async () => {
  await node?.stop();
});

describe('free new-account activations', () => {
  it('are bounded per block, and the one over the bound is told to retry later', async () => {
    await call(node.url, 'activeWallet', freshWallet());
    await waitFor(
      'the first block',
      async () => (await call<number>(node.url, 'getBlockCount')) === 2,
    );

    for (let i = 0; i < LIMIT; i++) await call(node.url, 'activeWallet', freshWallet());
    const reply = await rpc(node.url, 'activeWallet', freshWallet());
    expect(reply.error).toMatchObject({
      code: 1038,
      data: { reason: 'NEW_ACCOUNTS_FULL', param: 'wallet' },
    });
    expect(await call<number>(node.url, 'getPendingCount')).toBe(LIMIT);
  });
});
