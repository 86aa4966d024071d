import { tokenAddress } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  devWallet,
  mined,
  newFundedWallet,
  type OperationObject,
  type WalletInfo,
} from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

// A token's address has no key: native coins sent there could never move again. Every way of
// sending coins refuses it, naming the parameter, and getWalletInfo says what the address is.
let node: NodeProcess;
let payer: string;
let creator: string;
let token: string;
/** The account the token's address got from coins sent there before the token existed. */
let tokenAccount: number;
/** A transfer to that account, signed before the token existed. */
let rawBeforeToken: string;

const info = (wallet: string) => call<WalletInfo>(node.url, 'getWalletInfo', { wallet });

async function refusal(method: string, params: Record<string, unknown>) {
  const reply = await rpc(node.url, method, params);
  expect(reply.result).toBeUndefined();
  return reply.error as { code: number; data: { reason: string; param?: string } };
}

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '100'] });
  payer = await newFundedWallet(node, '1000');
  creator = await newFundedWallet(node, '10');
  await activate(node, payer);
  await activate(node, creator);
  // The token's address is known before it exists (creator account, next n_operation). A
  // transfer of 0 gives it an account without coins (a token may still be made there, nothing
  // would be stranded: see 'createToken refuses an address holding coins' below).
  const creatorInfo = await info(creator);
  token = tokenAddress('CH', creatorInfo.account, creatorInfo.n_operation + 1);
  const early = await call<OperationObject>(node.url, 'sendTo', {
    sender: payer,
    passphrase: 'pw',
    receiver: token,
    amount: '0',
  });
  await mined(node, early.ophash);
  tokenAccount = (await info(token)).account;
  const payerInfo = await info(payer);
  ({ rawoperation: rawBeforeToken } = await call<{ rawoperation: string }>(node.url, 'rawSendTo', {
    senderAccount: payerInfo.account,
    senderWallet: payer,
    senderNOperation: payerInfo.n_operation,
    passphrase: 'pw',
    receiverAccount: tokenAccount,
    amount: '1',
  }));
  const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
    wallet: creator,
    passphrase: 'pw',
    function: false,
    name: 'Keyless',
    symbol: 'KEY',
    summary: 'its address holds no key',
    totalAmount: '100',
    decimal: 0,
  });
  expect(created.token).toBe(token);
  await mined(node, created.ophash);
});

afterAll(async () => {
  await node?.stop();
});

describe('native coins to a token address', () => {
  it('sendTo, privSendTo and rawSendTo refuse it, naming the receiver param', async () => {
    const expected = { code: 1002, data: { reason: 'RECEIVER_IS_TOKEN' } };
    const send = { sender: payer, receiver: token, amount: '1' };
    expect(await refusal('sendTo', { ...send, passphrase: 'pw' })).toMatchObject({
      ...expected,
      data: { ...expected.data, param: 'receiver' },
    });
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet: payer,
      passphrase: 'pw',
    });
    expect(await refusal('privSendTo', { ...send, priv })).toMatchObject({
      ...expected,
      data: { ...expected.data, param: 'receiver' },
    });
    const payerInfo = await info(payer);
    expect(
      await refusal('rawSendTo', {
        senderAccount: payerInfo.account,
        senderWallet: payer,
        senderNOperation: payerInfo.n_operation,
        passphrase: 'pw',
        receiverAccount: tokenAccount,
        amount: '1',
      }),
    ).toMatchObject({ ...expected, data: { ...expected.data, param: 'receiverAccount' } });
  });

  it('excuteRaw reports a transfer to it as invalid, and nothing moves', async () => {
    const before = await info(token);
    const result = await call<{ valid?: boolean; errors?: string }>(node.url, 'excuteRaw', {
      rawoperation: rawBeforeToken,
    });
    expect(result.valid).toBe(false);
    expect(result.errors).toMatch(/token address/);
    expect((await info(token)).balance).toBe(before.balance);
  });

  it('nodeStep1 refuses it as the miner wallet (rewards would be lost)', async () => {
    expect(
      await refusal('nodeStep1', {
        wallet: devWallet(node),
        passphrase: 'dev',
        amount: '100',
        miner: token,
      }),
    ).toMatchObject({ code: 1002, data: { reason: 'RECEIVER_IS_TOKEN', param: 'miner' } });
  });

  it('getWalletInfo says it is a token address', async () => {
    expect(await info(token)).toMatchObject({ wallet: token, state: 'token address' });
  });

  it('createToken refuses an address holding coins, naming its balance', async () => {
    const other = await newFundedWallet(node, '10');
    await activate(node, other);
    const before = await info(other);
    const future = tokenAddress('CH', before.account, before.n_operation + 1);
    const early = await call<OperationObject>(node.url, 'sendTo', {
      sender: payer,
      passphrase: 'pw',
      receiver: future,
      amount: '0.000000000000000123',
    });
    await mined(node, early.ophash);
    const create = {
      wallet: other,
      passphrase: 'pw',
      function: false,
      name: 'Late',
      symbol: 'LATE',
      summary: 'its address holds coins',
      totalAmount: '100',
      decimal: 0,
    };
    const reply = await rpc(node.url, 'createToken', create);
    expect(reply.error).toMatchObject({
      code: 1040,
      data: { reason: 'TOKEN_ADDRESS_HOLDS_COINS', param: 'wallet' },
    });
    expect(reply.error!.message).toContain(`${future} (account ${(await info(future)).account})`);
    expect(reply.error!.message).toContain('a balance of 123 base units');
    expect((await info(future)).balance).toBe('123');
    // Another operation of the wallet first: its next createToken gets another address.
    await mined(
      node,
      (
        await call<OperationObject>(node.url, 'sendTo', {
          ...{ sender: other, passphrase: 'pw' },
          receiver: payer,
          amount: '1',
        })
      ).ophash,
    );
    const created = await call<OperationObject & { token: string }>(
      node.url,
      'createToken',
      create,
    );
    expect(created.token).not.toBe(future);
  });
});
