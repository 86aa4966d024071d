import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  mined,
  newFundedWallet,
  OPERATION_FIELDS,
  type OperationObject,
  type WalletInfo,
} from './harness/chain';
import { call, type NodeProcess, post, rpc, startNode } from './harness/node-process';

// The Token group through the real binary: an advanced and a plain token, every adminToken
// method, every refusal of the token rules, the read methods' exact shapes and units, and the
// token state across a restart.
const ARGS = ['--block-time', '100'];
let node: NodeProcess;
let owner: string;
let alice: string;

interface TokenInfo {
  totalHolder: number;
  advanced: boolean;
  symbol: string;
  name: string;
  summary: string;
  issuer: string;
  owner: string;
  decimal: number;
  totalAmount: string;
}

interface TokenHolder {
  transfer: boolean;
  balance: string;
  wallet: string;
  volumeLock: string;
  volumeTimeLock: string;
}

interface TokenHolders {
  transfer: boolean;
  advanced: boolean;
  totalHolder: number;
  holder: TokenHolder[];
  more: boolean;
}

beforeAll(async () => {
  node = await startNode({ args: ARGS, keepDatadir: true });
  owner = await newFundedWallet(node, '10');
  alice = await newFundedWallet(node, '10');
  await Promise.all([activate(node, owner), activate(node, alice)]);
});

afterAll(async () => {
  await node?.stop();
});

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

/** An operation-producing call, waited for until it is in a block. */
async function onChain(method: string, params: Record<string, unknown>): Promise<OperationObject> {
  const op = await call<OperationObject>(node.url, method, params);
  return mined(node, op.ophash);
}

async function refusal(method: string, params: Record<string, unknown>) {
  const reply = await rpc(node.url, method, params);
  expect(reply.result, `${method} should be refused`).toBeUndefined();
  return reply.error;
}

/** A token rule refusal: code 1040, its reason and the param at fault. */
function tokenRule(reason: string, param: string) {
  return { code: 1040, data: { reason, param } };
}

/** infoToken / holderToken with `wallet` beside `method`, as the spec's examples send it. */
async function besideMethod<T>(method: string, wallet: string): Promise<T> {
  const { json } = await post(node.url, JSON.stringify({ jsonrpc: '2.0', method, wallet, id: 7 }));
  const reply = json as { result?: T; error?: unknown };
  expect(reply.error).toBeUndefined();
  return reply.result as T;
}

const info = (token: string) => call<TokenInfo>(node.url, 'infoToken', { wallet: token });
const holders = (token: string, extra: Record<string, unknown> = {}) =>
  call<TokenHolders>(node.url, 'holderToken', { wallet: token, ...extra });

async function holderOf(token: string, wallet: string): Promise<TokenHolder | undefined> {
  return (await holders(token)).holder.find((h) => h.wallet === wallet);
}

const admin = (token: string, method: string, extra: Record<string, unknown> = {}) => ({
  sender: owner,
  passphrase: 'pw',
  token,
  method,
  ...extra,
});

const send = (token: string, sender: string, receiver: string, amount: string) => ({
  sender,
  passphrase: 'pw',
  receiver,
  amount,
  token,
});

let advanced: string;
let plain: string;

describe('createToken', () => {
  it('creates an advanced token: the result shape, the fee in coins, infoToken and holderToken', async () => {
    const before = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: owner });
    // Numbers and booleans as strings: the spec's examples send both forms.
    const op = await call<OperationObject & { token: string }>(node.url, 'createToken', {
      wallet: owner,
      passphrase: 'pw',
      function: 'true',
      name: 'Advanced Token',
      symbol: 'ADV',
      summary: 'Every function',
      totalAmount: '1000',
      decimal: '4',
    });
    const omitted = ['subtype', 'niopsp', 'ioprice', 'senders', 'receivers', 'amount'];
    const expectedKeys = [...OPERATION_FIELDS.filter((f) => !omitted.includes(f)), 'token'].sort();
    expect(Object.keys(op).sort()).toEqual(expectedKeys);
    expect(op).toMatchObject({ optype: 6, block: 0, signer_account: owner });
    expect(op.token).toMatch(/^CH[0-9a-f]{46}$/);
    advanced = op.token;

    const minedOp = (await mined(node, op.ophash)) as OperationObject & { token?: string };
    expect(Object.keys(minedOp).sort()).toEqual(expectedKeys);
    expect(minedOp.token).toBe(advanced);
    const after = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: owner });
    expect(BigInt(before.balance) - BigInt(after.balance)).toBe(BigInt(op.oprice));
    expect(BigInt(op.oprice)).toBe(BigInt(await call<number>(node.url, 'getActPrice')));

    const expectedInfo: TokenInfo = {
      totalHolder: 1,
      advanced: true,
      symbol: "'ADV'",
      name: "'Advanced Token'",
      summary: "'Every function'",
      issuer: owner,
      owner,
      decimal: 4,
      totalAmount: '1000.0000',
    };
    expect(await info(advanced)).toEqual(expectedInfo);
    expect(await besideMethod<TokenInfo>('infoToken', advanced)).toEqual(expectedInfo);
    const expectedHolders: TokenHolders = {
      transfer: true,
      advanced: true,
      totalHolder: 1,
      holder: [
        {
          transfer: true,
          balance: '10000000',
          wallet: owner,
          volumeLock: '0',
          volumeTimeLock: '0',
        },
      ],
      more: false,
    };
    expect(await holders(advanced)).toEqual(expectedHolders);
    expect(await besideMethod<TokenHolders>('holderToken', advanced)).toEqual(expectedHolders);
  });

  it('creates a plain token from native JSON types', async () => {
    const op = await onChain('createToken', {
      wallet: owner,
      passphrase: 'pw',
      function: false,
      name: 'Plain',
      symbol: 'PLN',
      summary: 'No extras',
      totalAmount: 5000,
      decimal: 0,
    });
    plain = (op as OperationObject & { token: string }).token;
    expect(await info(plain)).toMatchObject({
      advanced: false,
      decimal: 0,
      totalAmount: '5000',
      totalHolder: 1,
    });
  });

  it.each([
    ['an empty name', { name: '' }, tokenRule('NAME_EMPTY', 'name')],
    ['an empty symbol', { symbol: ' ' }, tokenRule('SYMBOL_EMPTY', 'symbol')],
    ['an empty summary', { summary: '' }, tokenRule('SUMMARY_EMPTY', 'summary')],
    ['a name over 64', { name: 'n'.repeat(65) }, { code: -32602, data: { param: 'name' } }],
    ['a symbol over 16', { symbol: 'S'.repeat(17) }, { code: -32602, data: { param: 'symbol' } }],
    [
      'a summary over 256',
      { summary: 's'.repeat(257) },
      { code: -32602, data: { param: 'summary' } },
    ],
    ['decimal 19', { decimal: 19 }, { code: -32602, data: { param: 'decimal' } }],
    [
      'a zero totalAmount',
      { totalAmount: '0' },
      tokenRule('TOTAL_AMOUNT_NOT_POSITIVE', 'totalAmount'),
    ],
    [
      'a fractional totalAmount',
      { totalAmount: '1.5' },
      tokenRule('TOTAL_AMOUNT_NOT_WHOLE', 'totalAmount'),
    ],
    [
      'a negative totalAmount',
      { totalAmount: '-5' },
      { code: -32602, data: { param: 'totalAmount' } },
    ],
  ])('refuses %s', async (_, change, error) => {
    const params = {
      wallet: owner,
      passphrase: 'pw',
      function: true,
      name: 'N',
      symbol: 'S',
      summary: 'S',
      totalAmount: '10',
      decimal: 2,
      ...change,
    };
    expect(await refusal('createToken', params)).toMatchObject(error);
  });
});

describe('sendToken', () => {
  it('sends whole tokens as base units; a new receiver becomes a holder', async () => {
    const receiver = stranger();
    const op = await call<OperationObject>(node.url, 'sendToken', {
      ...send(advanced, owner, receiver, '100'),
      amount: '10',
      payload: 'c0ffee',
    });
    // The spec's fields, and `token`: which token moved (amount is in its base units).
    expect(Object.keys(op).sort()).toEqual([...OPERATION_FIELDS, 'token'].sort());
    expect((op as { token?: string }).token).toBe(advanced);
    expect(op).toMatchObject({
      optype: 7,
      subtype: 0,
      amount: '100000',
      signer_account: owner,
      senders: [{ account: owner, payload: 'c0ffee', payload_type: 0 }],
      receivers: [{ account: receiver }],
    });
    await mined(node, op.ophash);
    // The spec's unit example: 100 tokens of a decimal-4 token are 1000000 base units.
    const hundred = await onChain('sendToken', send(advanced, owner, alice, '100.0000'));
    expect(hundred.amount).toBe('1000000');
    expect(await holderOf(advanced, receiver)).toEqual({
      transfer: true,
      balance: '100000',
      wallet: receiver,
      volumeLock: '0',
      volumeTimeLock: '0',
    });
    expect((await info(advanced)).totalHolder).toBe(3);
  });

  it('refuses beyond the balance, more decimals than the token has, an unknown token', async () => {
    expect(await refusal('sendToken', send(plain, owner, alice, '5001'))).toMatchObject(
      tokenRule('INSUFFICIENT_TOKEN_BALANCE', 'amount'),
    );
    // Too precise for the token: the same code and reason as a too precise native amount.
    const tooPrecise = { code: 1034, data: { reason: 'TOO_PRECISE', param: 'amount' } };
    expect(await refusal('sendToken', send(plain, owner, alice, '0.5'))).toMatchObject(tooPrecise);
    expect(await refusal('sendToken', send(advanced, owner, alice, '0.00001'))).toMatchObject(
      tooPrecise,
    );
    expect(await refusal('sendToken', send(advanced, owner, alice, '0'))).toMatchObject(
      tokenRule('ZERO_TOKEN_AMOUNT', 'amount'),
    );
    expect(await refusal('sendToken', send(advanced, owner, owner, '1'))).toMatchObject(
      tokenRule('TOKEN_SELF_TRANSFER', 'receiver'),
    );
    expect(await refusal('sendToken', send(stranger(), owner, alice, '1'))).toMatchObject({
      code: 1010,
      data: { reason: 'UNKNOWN_TOKEN', param: 'token' },
    });
    expect(await refusal('infoToken', { wallet: stranger() })).toMatchObject({
      code: 1010,
      data: { reason: 'UNKNOWN_TOKEN', param: 'wallet' },
    });
  });
});

describe('adminToken', () => {
  it('every method answers an operation object with payload_type 1', async () => {
    const op = await call<OperationObject>(
      node.url,
      'adminToken',
      admin(advanced, 'transferEnabled', { select: true }),
    );
    expect(Object.keys(op).sort()).toEqual([...OPERATION_FIELDS, 'token'].sort());
    expect((op as { token?: string }).token).toBe(advanced);
    expect(op).toMatchObject({
      optype: 7,
      subtype: 1,
      senders: [{ account: owner, payload: '', payload_type: 1 }],
      receivers: [],
    });
    await mined(node, op.ophash);
  });

  it('transferEnabled: false stops every transfer of the token, true resumes', async () => {
    await onChain('adminToken', admin(advanced, 'transferEnabled', { select: 'false' }));
    expect((await holders(advanced)).transfer).toBe(false);
    for (const from of [owner, alice]) {
      expect(await refusal('sendToken', send(advanced, from, stranger(), '1'))).toMatchObject(
        tokenRule('TOKEN_TRANSFER_DISABLED', 'token'),
      );
    }
    await onChain('adminToken', admin(advanced, 'transferEnabled', { select: true }));
    expect((await holders(advanced)).transfer).toBe(true);
    await onChain('sendToken', send(advanced, alice, owner, '1'));
  });

  it("transferWalletEnabled: false stops one wallet's transfers only", async () => {
    const op = await onChain(
      'adminToken',
      admin(advanced, 'transferWalletEnabled', { receiver: alice, select: false }),
    );
    expect(op).toMatchObject({ subtype: 2, receivers: [{ account: alice }] });
    expect(await holderOf(advanced, alice)).toMatchObject({ transfer: false });
    expect(await refusal('sendToken', send(advanced, alice, owner, '1'))).toMatchObject(
      tokenRule('WALLET_TRANSFER_DISABLED', 'sender'),
    );
    await onChain('sendToken', send(advanced, owner, alice, '1'));
    await onChain(
      'adminToken',
      admin(advanced, 'transferWalletEnabled', { receiver: alice, select: 'true' }),
    );
    await onChain('sendToken', send(advanced, alice, owner, '1'));
  });

  it('lockWalletVolume: a lasting lock and a time lock keep volume from moving', async () => {
    // alice holds 99 tokens now (990000 base units).
    expect(await holderOf(advanced, alice)).toMatchObject({ balance: '990000' });
    const op = await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '30' }),
    );
    expect(op).toMatchObject({ subtype: 3, amount: '300000' });
    await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '50', lockBlocks: 1000 }),
    );
    expect(await holderOf(advanced, alice)).toEqual({
      transfer: true,
      balance: '990000',
      wallet: alice,
      volumeLock: '300000',
      volumeTimeLock: '500000',
    });
    expect(await refusal('sendToken', send(advanced, alice, owner, '19.0001'))).toMatchObject(
      tokenRule('TOKEN_VOLUME_LOCKED', 'amount'),
    );
    expect(
      await refusal(
        'adminToken',
        admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '50.0001' }),
      ),
    ).toMatchObject(tokenRule('LOCK_EXCEEDS_BALANCE', 'amount'));
    await onChain('sendToken', send(advanced, alice, owner, '19'));
    // Unlock both, so later steps start clean.
    await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '0' }),
    );
    await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '0', lockBlocks: 1 }),
    );
    expect(await holderOf(advanced, alice)).toMatchObject({
      balance: '800000',
      volumeLock: '0',
      volumeTimeLock: '0',
    });
  });

  it('burnWalletVolume: takes from the holder and the supply, never beyond the balance', async () => {
    expect(
      await refusal(
        'adminToken',
        admin(advanced, 'burnWalletVolume', { receiver: alice, amount: '80.0001' }),
      ),
    ).toMatchObject(tokenRule('BURN_EXCEEDS_BALANCE', 'amount'));
    const op = await onChain(
      'adminToken',
      admin(advanced, 'burnWalletVolume', { receiver: alice, amount: '30' }),
    );
    expect(op).toMatchObject({ subtype: 4, amount: '300000' });
    expect(await holderOf(advanced, alice)).toMatchObject({ balance: '500000' });
    expect((await info(advanced)).totalAmount).toBe('970.0000');
  });

  it('mintWalletVolume: adds to a holder and the supply', async () => {
    const op = await onChain(
      'adminToken',
      admin(advanced, 'mintWalletVolume', { receiver: alice, amount: '12.5' }),
    );
    expect(op).toMatchObject({ subtype: 5, amount: '125000' });
    expect(await holderOf(advanced, alice)).toMatchObject({ balance: '625000' });
    expect((await info(advanced)).totalAmount).toBe('982.5000');
  });

  it('burnWalletVolume burns only unlocked volume (issue 42): a lock never ends above the balance', async () => {
    await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '60' }),
    );
    // 62.5 held, 60 locked: 2.5 may be burned, not a base unit more.
    const over = await refusal(
      'adminToken',
      admin(advanced, 'burnWalletVolume', { receiver: alice, amount: '2.5001' }),
    );
    expect(over).toMatchObject(tokenRule('BURN_EXCEEDS_BALANCE', 'amount'));
    expect(over!.message).toContain('600000 of them locked (lower the lock first)');
    await onChain(
      'adminToken',
      admin(advanced, 'burnWalletVolume', { receiver: alice, amount: '2.5' }),
    );
    expect(await holderOf(advanced, alice)).toMatchObject({
      balance: '600000',
      volumeLock: '600000',
    });
    // Back as the later tests expect it: 62.5 held, nothing locked.
    await onChain(
      'adminToken',
      admin(advanced, 'lockWalletVolume', { receiver: alice, amount: '0' }),
    );
    await onChain(
      'adminToken',
      admin(advanced, 'mintWalletVolume', { receiver: alice, amount: '2.5' }),
    );
    expect(await holderOf(advanced, alice)).toMatchObject({ balance: '625000', volumeLock: '0' });
  });

  it('refuses a param its method does not use (issue 42), naming it', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['transferEnabled', { select: false, receiver: alice }, 'receiver'],
      ['transferEnabled', { select: false, amount: '1' }, 'amount'],
      ['ownershipWallet', { receiver: alice, select: true }, 'select'],
      ['burnWalletVolume', { receiver: alice, amount: '1', lockBlocks: 5 }, 'lockBlocks'],
    ];
    for (const [method, extra, param] of cases) {
      const error = await refusal('adminToken', admin(advanced, method, extra));
      expect(error, `${method} with ${param}`).toMatchObject({
        code: -32602,
        data: { reason: 'INVALID_PARAMS', param },
      });
      expect(error!.message).toContain(`not used by method ${method}`);
    }
    // Nothing was done: the token still lets transfers through.
    expect((await holders(advanced)).transfer).toBe(true);
  });

  it('needs the params its method uses', async () => {
    expect(
      await refusal('adminToken', admin(advanced, 'mintWalletVolume', { amount: '1' })),
    ).toMatchObject({
      code: -32602,
      data: { param: 'receiver' },
    });
    expect(
      await refusal('adminToken', admin(advanced, 'burnWalletVolume', { receiver: alice })),
    ).toMatchObject({ code: -32602, data: { param: 'amount' } });
    expect(await refusal('adminToken', admin(advanced, 'transferEnabled'))).toMatchObject({
      code: -32602,
      data: { param: 'select' },
    });
  });

  it('the wallet functions need an advanced token', async () => {
    for (const [method, extra] of [
      ['transferWalletEnabled', { receiver: alice, select: false }],
      ['lockWalletVolume', { receiver: owner, amount: '1' }],
      ['burnWalletVolume', { receiver: owner, amount: '1' }],
      ['mintWalletVolume', { receiver: owner, amount: '1' }],
    ] as const) {
      expect(await refusal('adminToken', admin(plain, method, extra)), method).toMatchObject(
        tokenRule('NOT_ADVANCED_TOKEN', 'method'),
      );
    }
  });

  it('only the owner administers; ownershipWallet moves every right at once', async () => {
    expect(
      await refusal('adminToken', {
        ...admin(advanced, 'transferEnabled', { select: false }),
        sender: alice,
      }),
    ).toMatchObject(tokenRule('NOT_TOKEN_OWNER', 'sender'));
    const op = await onChain('adminToken', admin(advanced, 'ownershipWallet', { receiver: alice }));
    expect(op).toMatchObject({ subtype: 6, receivers: [{ account: alice }] });
    expect(await info(advanced)).toMatchObject({ issuer: owner, owner: alice });
    for (const [method, extra] of [
      ['transferEnabled', { select: true }],
      ['mintWalletVolume', { receiver: owner, amount: '1' }],
      ['ownershipWallet', { receiver: owner }],
    ] as const) {
      expect(await refusal('adminToken', admin(advanced, method, extra)), method).toMatchObject(
        tokenRule('NOT_TOKEN_OWNER', 'sender'),
      );
    }
    await onChain('adminToken', {
      ...admin(advanced, 'mintWalletVolume', { receiver: owner, amount: '1' }),
      sender: alice,
    });
    expect((await info(advanced)).totalAmount).toBe('983.5000');
  });
});

describe('holderToken paging', () => {
  it('pages with `after` and `max` in the order holders joined', async () => {
    const all = (await holders(advanced)).holder;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const paged: TokenHolder[] = [];
    for (;;) {
      const after = paged.at(-1)?.wallet;
      const page = await holders(advanced, after === undefined ? { max: 1 } : { after, max: 1 });
      paged.push(...page.holder);
      if (page.holder.length < 1) break;
    }
    expect(paged).toEqual(all);
    expect(all[0]!.wallet).toBe(owner);
    expect(await refusal('holderToken', { wallet: advanced, after: stranger() })).toMatchObject({
      code: 1010,
      data: { reason: 'HOLDER_NOT_FOUND', param: 'after' },
    });
    expect(await refusal('holderToken', { wallet: advanced, max: 1001 })).toMatchObject({
      code: -32602,
      data: { param: 'max' },
    });
  });
});

describe('restart', () => {
  it('keeps infoToken and holderToken identical', async () => {
    const before = {
      advanced: [await info(advanced), await holders(advanced)],
      plain: [await info(plain), await holders(plain)],
    };
    await node.stop();
    node = await startNode({ datadir: node.datadir, args: ARGS, keepDatadir: true });
    expect({
      advanced: [await info(advanced), await holders(advanced)],
      plain: [await info(plain), await holders(plain)],
    }).toEqual(before);
    // And the token keeps working.
    await onChain('sendToken', send(plain, owner, alice, '1'));
    expect((await info(plain)).totalHolder).toBe(2);
  });
});
