import { type BlockInfo, createClient } from '@chain/rpc-client';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { devWallet, mined, type OperationObject, waitFor } from './harness/chain';
import { call, freePort, makeDatadir, type NodeProcess, startNode } from './harness/node-process';

// The SDK's push (issue 16) through the real binary: client.subscribe resumes from the last
// height it saw when the node is killed and restarted mid-stream, so no block is missed or repeated.
let node: NodeProcess | undefined;

afterAll(async () => {
  await node?.stop('SIGKILL');
});

async function makeBlocks(url: string, count: number): Promise<void> {
  const dev = devWallet(node!);
  const { wallet } = await call<{ wallet: string }>(url, 'newWallet', { passphrase: 'pw' });
  for (let i = 0; i < count; i++) {
    const op = await call<OperationObject>(url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: wallet,
      amount: '1',
    });
    await mined(node!, op.ophash);
  }
}

describe('client.subscribe', () => {
  it('sees every block once across a kill and restart of the node', async () => {
    const datadir = await makeDatadir();
    const port = await freePort();
    const start = () =>
      startNode({ datadir, rpcPort: port, args: ['--block-time', '100'], keepDatadir: true });
    node = await start();
    const client = createClient({
      url: node.url,
      // Node 20 has no global WebSocket: the `ws` package's, as it is (no cast).
      WebSocket,
      // Long enough that the restarted node makes blocks before the client is back.
      reconnectDelayMs: 1500,
      maxReconnectDelayMs: 1500,
    });
    const seen: BlockInfo[] = [];
    const subscription = client.subscribe('newBlocks', { fromBlock: 0 }, (block) =>
      seen.push(block),
    );
    await subscription.ready;
    await makeBlocks(node.url, 3);
    await node.stop('SIGKILL');
    node = await start();
    await makeBlocks(node.url, 3);
    const head = (await call<number>(node.url, 'getBlockCount')) - 1;
    await waitFor('the client to catch up', async () => seen.at(-1)?.block === head).catch((e) => {
      throw new Error(`${e} seen ${seen.map((b) => b.block)} head ${head}`);
    });
    expect(seen.map((block) => block.block)).toEqual([...Array(head + 1).keys()]);
    for (const block of seen.slice(-3)) {
      expect(block).toEqual(await call(node.url, 'getBlockInfo', { block: block.block }));
    }
    // An iterator subscription too: the next block.
    const iterator = client.subscribe('newBlocks')[Symbol.asyncIterator]();
    const next = iterator.next();
    await makeBlocks(node.url, 1);
    expect(((await next).value as BlockInfo).block).toBe(head + 1);
    await iterator.return?.();
    await subscription.unsubscribe();
    client.close();
  });
});
