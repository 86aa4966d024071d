import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activate, devWallet, newFundedWallet } from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

// Errors about the signing wallet name the request param that named it.
let node: NodeProcess;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '100'] });
});

afterAll(async () => {
  await node?.stop();
});

describe('signer errors name their param', () => {
  it('INACTIVE_ACCOUNT names the sender of a transfer from a wallet not activated yet', async () => {
    const inactive = await newFundedWallet(node, '5');
    const reply = await rpc(node.url, 'sendTo', {
      sender: inactive,
      passphrase: 'pw',
      receiver: devWallet(node),
      amount: '1',
    });
    expect(reply.error).toMatchObject({
      code: 1033,
      data: { reason: 'INACTIVE_ACCOUNT', param: 'sender' },
    });
  });

  it('ALREADY_ACTIVE names the wallet of activeWallet', async () => {
    const wallet = await newFundedWallet(node, '5');
    await activate(node, wallet);
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    const reply = await rpc(node.url, 'activeWallet', { wallet, private: priv });
    expect(reply.error).toMatchObject({
      code: 1004,
      data: { reason: 'ALREADY_ACTIVE', param: 'wallet' },
    });
  });
});
