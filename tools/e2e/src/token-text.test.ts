import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activate, mined, newFundedWallet, type OperationObject } from './harness/chain';
import { call, type NodeProcess, startNode } from './harness/node-process';

// The quoted text fields of infoToken read back unambiguously, and holderToken's pages say
// whether more holders follow.
let node: NodeProcess;
let token: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '100'] });
  const owner = await newFundedWallet(node, '10');
  const other = await newFundedWallet(node, '1');
  await activate(node, owner);
  const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
    wallet: owner,
    passphrase: 'pw',
    function: false,
    name: `Bob's "best" \\ token`,
    symbol: "B'S",
    summary: "it's quoted",
    totalAmount: '10',
    decimal: 0,
  });
  await mined(node, created.ophash);
  token = created.token;
  const sent = await call<OperationObject>(node.url, 'sendToken', {
    sender: owner,
    passphrase: 'pw',
    receiver: other,
    amount: '1',
    token,
  });
  await mined(node, sent.ophash);
});

afterAll(async () => {
  await node?.stop();
});

describe('token text and holder pages', () => {
  it('escapes quotes and backslashes inside the quoted fields', async () => {
    const info = await call<Record<string, unknown>>(node.url, 'infoToken', { wallet: token });
    expect(info).toMatchObject({
      name: `'Bob\\'s "best" \\\\ token'`,
      symbol: `'B\\'S'`,
      summary: `'it\\'s quoted'`,
    });
  });

  it('holderToken says when more holders follow the page', async () => {
    type Page = { totalHolder: number; holder: { wallet: string }[]; more: boolean };
    const first = await call<Page>(node.url, 'holderToken', { wallet: token, max: 1 });
    expect(first).toMatchObject({ totalHolder: 2, more: true });
    expect(first.holder).toHaveLength(1);
    const rest = await call<Page>(node.url, 'holderToken', {
      wallet: token,
      max: 1,
      after: first.holder[0]!.wallet,
    });
    expect(rest.holder).toHaveLength(1);
    expect(rest.more).toBe(false);
    expect((await call<Page>(node.url, 'holderToken', { wallet: token, max: 2 })).more).toBe(false);
  });
});
