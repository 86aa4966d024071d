import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  devWallet,
  mined,
  newFundedWallet,
  type OperationObject,
  type WalletInfo,
} from './harness/chain';
import { call, type NodeProcess, post, startNode } from './harness/node-process';

// JSON numbers are taken exactly as written, through the real binary. Every body here is written by
// hand (not JSON.stringify, not the SDK), so that the numbers really reach the node unquoted, as an
// integrator's plain HTTP client sends them.
let node: NodeProcess;
let dev: string;
let issuer: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '100'] });
  dev = devWallet(node);
  issuer = await newFundedWallet(node, '10');
  await activate(node, issuer);
});

afterAll(async () => {
  await node?.stop();
});

interface Reply<T = unknown> {
  id: unknown;
  result?: T;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
}

/** One call whose params are raw JSON text (numbers in it stay as written). */
async function rawCall<T>(method: string, params: string, id = '1'): Promise<Reply<T>> {
  const { status, json } = await post(
    node.url,
    `{"jsonrpc":"2.0","method":"${method}","params":${params},"id":${id}}`,
  );
  expect(status).toBe(200);
  return json as Reply<T>;
}

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

const sendTo = (receiver: string, amount: string) =>
  rawCall<OperationObject>(
    'sendTo',
    `{"sender":"${dev}","passphrase":"dev","receiver":"${receiver}","amount":${amount}}`,
  );

async function balanceOf(wallet: string): Promise<string> {
  return (await call<WalletInfo>(node.url, 'getWalletInfo', { wallet })).balance;
}

describe('request ids', () => {
  it('come back with every digit', async () => {
    const { text } = await post(
      node.url,
      '{"jsonrpc":"2.0","method":"getBlockCount","id":12345678901234567890}',
    );
    expect(text).toContain('"id":"12345678901234567890"');
  });
});

describe('sendTo with a JSON number amount', () => {
  it('moves exactly the base units of a 19-significant-digit number', async () => {
    const receiver = stranger();
    const reply = await sendTo(receiver, '1.234567890123456789');
    expect(reply.error).toBeUndefined();
    expect(reply.result?.amount).toBe('1234567890123456789');
    await mined(node, reply.result!.ophash);
    expect(await balanceOf(receiver)).toBe('1234567890123456789');
  });

  it('sends 1 base unit for 0.000000000000000001', async () => {
    const receiver = stranger();
    const reply = await sendTo(receiver, '0.000000000000000001');
    expect(reply.error).toBeUndefined();
    expect(reply.result?.amount).toBe('1');
    await mined(node, reply.result!.ophash);
    expect(await balanceOf(receiver)).toBe('1');
  });

  it('refuses a 19-fraction-digit number as it refuses the same string, naming amount', async () => {
    const receiver = stranger();
    const asNumber = await sendTo(receiver, '0.0000000000000000001');
    const asString = await sendTo(receiver, '"0.0000000000000000001"');
    for (const reply of [asNumber, asString]) {
      expect(reply.error).toMatchObject({
        code: 1034,
        data: { reason: 'TOO_PRECISE', param: 'amount' },
      });
    }
    expect(asNumber.error?.message).toBe(asString.error?.message);
    expect(await balanceOf(receiver)).toBe('0');
  });

  it('refuses an exponent as it refuses the same string', async () => {
    const reply = await sendTo(stranger(), '1e-18');
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'amount' } });
  });
});

describe('tokens with JSON number amounts', () => {
  it('createToken mines exactly the supply 12345678901234567891, and sendToken moves exact units', async () => {
    const created = await rawCall<OperationObject & { token: string }>(
      'createToken',
      `{"wallet":"${issuer}","passphrase":"pw","function":false,"name":"Exact","symbol":"EXA","summary":"every digit","totalAmount":12345678901234567891,"decimal":4}`,
    );
    expect(created.error).toBeUndefined();
    const token = created.result!.token;
    await mined(node, created.result!.ophash);

    const info = await call<{ totalAmount: string; decimal: number }>(node.url, 'infoToken', {
      wallet: token,
    });
    expect(info).toMatchObject({ totalAmount: '12345678901234567891.0000', decimal: 4 });
    const holders = await call<{ holder: { wallet: string; balance: string }[] }>(
      node.url,
      'holderToken',
      { wallet: token },
    );
    expect(holders.holder).toEqual([
      expect.objectContaining({ wallet: issuer, balance: '123456789012345678910000' }),
    ]);

    const receiver = stranger();
    const sent = await rawCall<OperationObject>(
      'sendToken',
      `{"sender":"${issuer}","passphrase":"pw","receiver":"${receiver}","amount":1234567890123456789.1234,"token":"${token}"}`,
    );
    expect(sent.error).toBeUndefined();
    expect(sent.result?.amount).toBe('12345678901234567891234');
    await mined(node, sent.result!.ophash);
    const after = await call<{ holder: { wallet: string; balance: string }[] }>(
      node.url,
      'holderToken',
      { wallet: token },
    );
    expect(after.holder.find((h) => h.wallet === receiver)?.balance).toBe(
      '12345678901234567891234',
    );

    // More fraction digits than the token's decimal: the same refusal as a native amount.
    const tooPrecise = await rawCall(
      'sendToken',
      `{"sender":"${issuer}","passphrase":"pw","receiver":"${receiver}","amount":1.00001,"token":"${token}"}`,
    );
    expect(tooPrecise.error).toMatchObject({
      code: 1034,
      data: { reason: 'TOO_PRECISE', param: 'amount' },
    });
  });
});

describe('integers given as JSON numbers', () => {
  it('refuses one with a fraction instead of reading it as the integer next to it', async () => {
    const reply = await rawCall('getBlockInfo', '{"block":1.0000000000000001}');
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'block' } });
  });

  it('refuses one beyond the safe range, naming it', async () => {
    const reply = await rawCall('getBlockOperations', '{"block":12345678901234567891}');
    expect(reply.error).toMatchObject({ code: -32602, data: { param: 'block' } });
    expect(reply.error?.message).toContain('12345678901234567891');
  });
});

describe("blockchainStart's repeated mine key with an explicit share", () => {
  it('refuses conflicting values naming share, never choosing one silently', async () => {
    const [top, mine, second, share] = [dev, stranger(), stranger(), stranger()];
    const reply = await rawCall(
      'blockchainStart',
      `{"code":"0000000000000000","wallet":"${top}","passphrase":"dev","mine":"${mine}","minepass":"pw","mine":"${second}","share":"${share}","nodes":""}`,
    );
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { reason: 'INVALID_PARAMS', param: 'share' },
    });
  });
});
