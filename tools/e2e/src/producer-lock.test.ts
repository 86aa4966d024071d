import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { activate, devWallet, mined, newFundedWallet, type OperationObject } from './harness/chain';
import { call, type NodeProcess, startNode } from './harness/node-process';

// "A locked wallet signs nothing, blocks included": the dev wallet is this node's only block
// producer, so while it is locked nothing is mined, before and after a restart.
const BLOCK_TIME = ['--block-time', '100'];
/** Many block times: a producer that still held the key would have mined by then. */
const QUIET_MS = 1500;

let node: NodeProcess | undefined;
let datadir: string | undefined;

afterAll(async () => {
  await node?.stop();
  if (datadir) await rm(datadir, { recursive: true, force: true });
});

async function expectNothingMined(running: NodeProcess, ophash: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const [pending] = await call<OperationObject[]>(running.url, 'findOperation', { ophash });
  expect(pending?.block).toBe(0);
  expect(await call<number>(running.url, 'getPendingCount')).toBeGreaterThan(0);
}

describe('a locked producer wallet', () => {
  it('signs no block until unlockWallet, and stays locked across a restart', async () => {
    node = await startNode({ args: BLOCK_TIME, keepDatadir: true });
    datadir = node.datadir;
    const dev = devWallet(node);
    const payer = await newFundedWallet(node, '10');
    await activate(node, payer);
    const heightBefore = await call<number>(node.url, 'getBlockCount');

    expect(await call<boolean>(node.url, 'lockWallet', { wallet: dev })).toBe(true);
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: payer,
      passphrase: 'pw',
      receiver: dev,
      amount: '1',
    });
    await expectNothingMined(node, op.ophash);
    expect(await call<number>(node.url, 'getBlockCount')).toBe(heightBefore);

    await node.stop();
    node = await startNode({ args: BLOCK_TIME, datadir });
    expect(node.stdout() + node.stderr()).toMatch(/producer wallet is locked/);
    await expectNothingMined(node, op.ophash);

    expect(await call<boolean>(node.url, 'unlockWallet', { wallet: dev, passphrase: 'dev' })).toBe(
      true,
    );
    expect((await mined(node, op.ophash)).block).toBe(heightBefore);
  });
});
