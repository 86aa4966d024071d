import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callBatch } from './harness/batch-call';
import {
  activate,
  COIN,
  devWallet,
  expectOperationShape,
  mined,
  newFundedWallet,
  type OperationObject,
  type WalletInfo,
  waitFor,
} from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

// The Operations group through the real binary. A block time of 300 ms leaves operations pending
// long enough to be seen pending.
let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '300'] });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

describe('sendTo', () => {
  it('transfers coins: a pending operation, then mined, found by either ophash', async () => {
    const receiver = stranger();
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver,
      amount: '100',
      payload: 'c0ffee',
    });
    expectOperationShape(op);
    expect(op).toMatchObject({
      block: 0,
      maturation: null,
      optype: 2,
      signer_account: dev,
      amount: (100n * COIN).toString(),
      receivers: [{ account: receiver }],
      senders: [{ account: dev, payload: 'c0ffee', payload_type: 0 }],
    });
    expect(op.optxt).toMatch(/^Transfer/);
    expect(op.oprice).toBe(String(await call<number>(node.url, 'getActPrice')));

    // One batch: both answered in the same tick, so no block can be mined between them.
    const [pending, count] = (await callBatch(node.url, [
      { method: 'getPendingOperation' },
      { method: 'getPendingCount' },
    ])) as [OperationObject[], number];
    expect(count).toBe(pending.length);

    const onChain = await mined(node, op.ophash);
    expect(onChain.block).toBeGreaterThan(0);
    expect(onChain.maturation).toEqual(expect.any(Number));
    expect(onChain.ophash).not.toBe(op.ophash);
    expect(onChain.ophash.slice(8)).toBe(op.ophash.slice(8));
    expect(await call(node.url, 'findOperation', { ophash: onChain.ophash })).toEqual([
      expect.objectContaining({ ophash: onChain.ophash, block: onChain.block }),
    ]);
    const inBlock = await call<OperationObject[]>(node.url, 'getBlockOperations', {
      block: onChain.block,
    });
    expect(inBlock.map((o) => o.ophash)).toContain(onChain.ophash);

    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver });
    expect(info).toMatchObject({ balance: (100n * COIN).toString(), state: 'inactive wallet' });
    expect(info.account).toBeGreaterThan(0);
  });

  it('accepts fractional coins up to 18 places', async () => {
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '0.000000000000000001',
    });
    expect(op.amount).toBe('1');
  });

  it.each([
    ['negative', '-1', -32602],
    ['exponent', '1e5', -32602],
    ['not a number', 'lots', -32602],
    ['too precise', '0.0000000000000000001', 1034],
  ])('refuses a %s amount', async (_, amount, code) => {
    const reply = await rpc(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount,
    });
    expect(reply.error).toMatchObject({ code, data: { param: 'amount' } });
  });

  it('refuses more than the sender has (1031)', async () => {
    const reply = await rpc(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '99999999999',
    });
    expect(reply.error).toMatchObject({ code: 1031 });
  });

  it('refuses a wrong passphrase (1030)', async () => {
    const reply = await rpc(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'nope',
      receiver: stranger(),
      amount: '1',
    });
    expect(reply.error).toMatchObject({ code: 1030, data: { param: 'passphrase' } });
  });

  it('refuses a sender that is not in the key store (1010, param sender)', async () => {
    const reply = await rpc(node.url, 'sendTo', {
      sender: stranger(),
      passphrase: 'x',
      receiver: dev,
      amount: '1',
    });
    expect(reply.error).toMatchObject({ code: 1010, data: { param: 'sender' } });
  });

  it('refuses a receiver with a bad checksum (1002, param receiver)', async () => {
    const bad = dev.slice(0, -1) + (dev.at(-1) === 'a' ? 'b' : 'a');
    const reply = await rpc(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: bad,
      amount: '1',
    });
    expect(reply.error).toMatchObject({ code: 1002, data: { param: 'receiver' } });
  });

  it('refuses a bad or oversized payload (param payload)', async () => {
    for (const payload of ['xyz', 'abc', '00'.repeat(256)]) {
      const reply = await rpc(node.url, 'sendTo', {
        sender: dev,
        passphrase: 'dev',
        receiver: stranger(),
        amount: '1',
        payload,
      });
      expect(reply.error, payload).toMatchObject({ data: { param: 'payload' } });
    }
  });

  it('refuses an inactive signer (1033)', async () => {
    const wallet = await newFundedWallet(node, '3');
    const reply = await rpc(node.url, 'sendTo', {
      sender: wallet,
      passphrase: 'pw',
      receiver: dev,
      amount: '1',
    });
    expect(reply.error).toMatchObject({ code: 1033 });
  });

  it('gives concurrent transfers of one sender consecutive n_operations, all mined', async () => {
    const receiver = stranger();
    const ops = await Promise.all(
      Array.from({ length: 20 }, () =>
        call<OperationObject>(node.url, 'sendTo', {
          sender: dev,
          passphrase: 'dev',
          receiver,
          amount: '1',
        }),
      ),
    );
    const numbers = ops.map((op) => op.n_operation).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => numbers[0]! + i));
    await Promise.all(ops.map((op) => mined(node, op.ophash)));
    expect((await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver })).balance).toBe(
      (20n * COIN).toString(),
    );
  });
});

describe('rawSendTo, InfoRaw, excuteRaw', () => {
  it('signs offline, describes, executes, and refuses a replay', async () => {
    const receiver = await newFundedWallet(node, '1');
    const receiverInfo = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver });
    await waitFor(
      'no pending operations',
      async () => (await call<number>(node.url, 'getPendingCount')) === 0,
    );
    const sender = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev });
    const raw = await call<{ amount: string; fee: string; rawoperation: string }>(
      node.url,
      'rawSendTo',
      {
        senderAccount: sender.account,
        senderWallet: dev,
        senderNOperation: sender.n_operation,
        passphrase: 'dev',
        receiverAccount: receiverInfo.account,
        amount: '2.5',
        payload: 'ab',
      },
    );
    expect(raw).toEqual({
      amount: ((25n * COIN) / 10n).toString(),
      fee: expect.stringMatching(/^\d+$/),
      rawoperation: expect.stringMatching(/^[0-9a-f]+$/),
    });
    // rawSendTo does not send.
    expect(await call<number>(node.url, 'getPendingCount')).toBe(0);

    const described = await call<OperationObject[]>(node.url, 'InfoRaw', {
      rawoperation: raw.rawoperation,
    });
    expect(described).toHaveLength(1);
    expect(described[0]).toMatchObject({
      optype: 2,
      amount: raw.amount,
      signer_account: dev,
      n_operation: sender.n_operation + 1,
    });
    expect(described[0]!.receivers[0]!.account).toBe(receiver);

    const executed = await call<OperationObject>(node.url, 'excuteRaw', {
      rawoperation: raw.rawoperation,
    });
    expect(executed.ophash).toMatch(/^[0-9a-f]{64}$/);
    await mined(node, executed.ophash);
    expect((await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver })).balance).toBe(
      ((35n * COIN) / 10n).toString(),
    );

    const replay = await call<{ valid: boolean; errors: string }>(node.url, 'excuteRaw', {
      rawoperation: raw.rawoperation,
    });
    expect(replay).toMatchObject({ valid: false, errors: expect.any(String) });
  });

  it('reports a wrong n_operation in excuteRaw as valid:false', async () => {
    const sender = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev });
    const raw = await call<{ rawoperation: string }>(node.url, 'rawSendTo', {
      senderAccount: sender.account,
      senderWallet: dev,
      senderNOperation: sender.n_operation + 50,
      passphrase: 'dev',
      receiverAccount: 0,
      amount: '1',
    });
    const result = await call<{ valid: boolean; errors: string }>(node.url, 'excuteRaw', {
      rawoperation: raw.rawoperation,
    });
    expect(result.valid).toBe(false);
    expect(result.errors).toMatch(/N_OPERATION/);
  });

  it('reports garbage in excuteRaw as valid:false and refuses it in InfoRaw', async () => {
    expect(await call(node.url, 'excuteRaw', { rawoperation: '0100000002' })).toMatchObject({
      valid: false,
    });
    expect((await rpc(node.url, 'InfoRaw', { rawoperation: '0100000002' })).error).toMatchObject({
      code: 1016,
      data: { param: 'rawoperation' },
    });
    expect((await rpc(node.url, 'InfoRaw', { rawoperation: 'xyz' })).error).toMatchObject({
      code: -32602,
    });
  });
});

describe('privSendTo', () => {
  it('transfers with an encoded private key, and refuses a key of another wallet', async () => {
    const wallet = await newFundedWallet(node, '5');
    await activate(node, wallet);
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    const op = await call<OperationObject>(node.url, 'privSendTo', {
      sender: wallet,
      priv,
      receiver: dev,
      amount: '1',
    });
    expect(op).toMatchObject({ optype: 2, signer_account: wallet, amount: COIN.toString() });
    await mined(node, op.ophash);
    const refused = await rpc(node.url, 'privSendTo', {
      sender: dev,
      priv,
      receiver: wallet,
      amount: '1',
    });
    expect(refused.error).toMatchObject({ code: 1005, data: { param: 'priv' } });
  });
});

describe('getActPrice, findOperation, decodeOpHash', () => {
  it('reports the act price as an integer', async () => {
    const price = await call<number>(node.url, 'getActPrice');
    expect(Number.isSafeInteger(price) && price > 0).toBe(true);
  });

  it('decodes an ophash into block, account, n_operation and digest', async () => {
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '1',
    });
    const onChain = await mined(node, op.ophash);
    const [parts] = await call<Array<Record<string, unknown>>>(node.url, 'decodeOpHash', {
      ophash: onChain.ophash,
    });
    expect(parts).toEqual({
      block: onChain.block,
      account: 0,
      n_operation: onChain.n_operation,
      mdhash: onChain.ophash.slice(24),
      ophash: onChain.ophash.slice(24),
    });
  });

  it('answers [] for an unknown ophash and refuses a malformed one', async () => {
    expect(await call(node.url, 'findOperation', { ophash: 'ab'.repeat(32) })).toEqual([]);
    expect((await rpc(node.url, 'decodeOpHash', { ophash: 'ab' })).error).toMatchObject({
      data: { param: 'ophash' },
    });
  });
});
