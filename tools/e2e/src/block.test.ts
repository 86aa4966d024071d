import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '0'] });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

const BLOCK_FIELDS = [
  'block',
  'ver',
  'ver_a',
  'timestamp',
  'nopsp',
  'niopsp',
  'hmr',
  'blocksize',
  'hash',
  'one_hash',
  'four_hash',
  'three_hash',
  'payload',
  'trx_fee',
  'operations',
  // Extra fields: what the block paid out and minted (recorded when this node executed it).
  'reward',
  'subsidy',
].sort();

describe('the Block group', () => {
  it('starts at the genesis block and counts up as operations are mined, never empty blocks', async () => {
    const before = await call<number>(node.url, 'getBlockCount');
    expect(before).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await call<number>(node.url, 'getBlockCount')).toBe(before);
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '1',
    });
    const onChain = await mined(node, op.ophash);
    expect(await call<number>(node.url, 'getBlockCount')).toBe(onChain.block + 1);
  });

  it('describes a block with exactly the spec fields and types', async () => {
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: stranger(),
      amount: '2',
    });
    const onChain = await mined(node, op.ophash);
    const info = await call<Record<string, unknown>>(node.url, 'getBlockInfo', {
      block: onChain.block,
    });
    expect(Object.keys(info).sort()).toEqual(BLOCK_FIELDS);
    expect(info).toMatchObject({
      block: onChain.block,
      hmr: dev,
      operations: 1,
      trx_fee: onChain.oprice,
      // The dev producer is a genesis producer: its block pays its fees and mints nothing.
      reward: onChain.oprice,
      subsidy: '0',
    });
    for (const key of ['hash', 'one_hash', 'four_hash', 'three_hash'])
      expect(info[key], key).toMatch(/^0x[0-9a-f]{64}$/);
    for (const key of ['timestamp', 'nopsp', 'niopsp', 'trx_fee', 'reward', 'subsidy'])
      expect(info[key], key).toMatch(/^\d+$/);
    for (const key of ['ver', 'ver_a', 'blocksize'])
      expect(Number.isInteger(info[key]), key).toBe(true);
    expect(info.payload).toMatch(/^0x([0-9a-f]{2})*$/);
    const parent = await call<Record<string, unknown>>(node.url, 'getBlockInfo', {
      block: onChain.block - 1,
    });
    expect(info.one_hash).toBe(parent.hash);
  });

  it('describes the genesis block', async () => {
    const genesis = await call<Record<string, unknown>>(node.url, 'getBlockInfo', { block: 0 });
    expect(genesis).toMatchObject({ block: 0, operations: 0 });
    // Nobody produced it: it paid no reward.
    expect(genesis).not.toHaveProperty('reward');
  });

  it('refuses a block out of range (1003, param block) and a negative one (-32602)', async () => {
    const count = await call<number>(node.url, 'getBlockCount');
    expect((await rpc(node.url, 'getBlockInfo', { block: count })).error).toMatchObject({
      code: 1003,
      data: { param: 'block' },
    });
    expect((await rpc(node.url, 'getBlockOperations', { block: count + 5 })).error).toMatchObject({
      code: 1003,
    });
    expect((await rpc(node.url, 'getBlockInfo', { block: -1 })).error).toMatchObject({
      code: -32602,
      data: { param: 'block' },
    });
  });

  it('reports sync progress as integers', async () => {
    const sync = await call<Record<string, number>>(node.url, 'blockSyncing');
    const count = await call<number>(node.url, 'getBlockCount');
    expect(sync).toEqual({
      startingBlock: expect.any(Number),
      currentBlock: count - 1,
      highestBlock: count - 1,
      historyStart: 0,
      snapshot: null,
    });
  });
});
