import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mined, type OperationObject, waitFor } from './harness/chain';
import {
  converged,
  datadirWithKeys,
  initGenesis,
  MINE_PASSPHRASE,
  type NetworkNode,
  newTestKey,
  removeDatadir,
  startNetworkNode,
  type TestKey,
  tip,
} from './harness/network';
import { call, makeDatadir, type NodeProcess } from './harness/node-process';
import { openPushSocket, type PushSocket } from './harness/push-socket';

// A reorganisation seen through push (issue 16): three producers; c, partitioned, mines an
// operation of its own into a branch the other two outweigh. When c rejoins and takes their chain,
// its walletOperations subscriber hears that operation again with `removed: true`, then mined
// anew, and its newBlocks subscriber hears the new branch's blocks for the heights it had.
const dirs: string[] = [];
const nodes: NetworkNode[] = [];
let socket: PushSocket | undefined;

afterAll(async () => {
  socket?.ws.terminate();
  await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
  await Promise.all(dirs.map(removeDatadir));
});

async function producerNode(
  key: TestKey,
  genesis: string,
  peers: NetworkNode[],
): Promise<NetworkNode> {
  const dir = await datadirWithKeys([key]);
  dirs.push(dir);
  const node = await startNetworkNode({
    datadir: dir,
    genesis,
    peers,
    mineWallets: [key.address],
    args: ['--block-time', '100'],
  });
  nodes.push(node);
  return node;
}

function send(node: NodeProcess, from: TestKey, to: TestKey, amount: string) {
  return call<OperationObject>(node.url, 'sendTo', {
    sender: from.address,
    passphrase: MINE_PASSPHRASE,
    receiver: to.address,
    amount,
  });
}

describe('push across a reorganisation', () => {
  const p = [newTestKey(), newTestKey(), newTestKey()];
  let a: NetworkNode;
  let b: NetworkNode;
  let c: NetworkNode;

  beforeAll(async () => {
    // Generous: three processes meeting on a loaded machine.
    const dir = await makeDatadir();
    dirs.push(dir);
    const genesis = await initGenesis(dir, p);
    a = await producerNode(p[0]!, genesis, []);
    b = await producerNode(p[1]!, genesis, [a]);
    c = await producerNode(p[2]!, genesis, [a, b]);
    await waitFor(
      'the producers to meet',
      async () => {
        for (const node of [a, b, c]) {
          const status = await call<{ ready: boolean; netstats: { active: number } }>(
            node.url,
            'nodeStatus',
          );
          if (!status.ready || status.netstats.active !== 2) return false;
        }
        return true;
      },
      60_000,
    );
  });

  it('sends the operations of the dropped branch again with removed: true', async () => {
    // c may sign alone only if it did not sign the head (the recent-signer rule).
    await mined(a, (await send(a, p[0]!, p[1]!, '1')).ophash);
    if ((await converged([a, b, c])).hmr === p[2]!.address) {
      await mined(a, (await send(a, p[0]!, p[1]!, '1')).ophash);
    }
    const start = await converged([a, b, c]);
    socket = await openPushSocket(c.url);
    const ops = await socket.subscribe({ event: 'walletOperations', wallet: p[2]!.address });
    const blocks = await socket.subscribe({ event: 'newBlocks' });

    expect(await call(c.url, 'nodeStop')).toBe(true);
    const lonely = await send(c, p[2]!, p[0]!, '7');
    const branch = await waitFor('c to mine on its own', async () => {
      const top = await tip(c);
      return top.block > start.block ? top : undefined;
    });
    const [minedAlone] = await socket.waitNotifications(ops, 1);
    // The ophash of a mined operation starts with its block number (0 while pending).
    expect(String(minedAlone!.ophash).slice(8)).toBe(lonely.ophash.slice(8));
    expect(minedAlone!.block).toBe(branch.block);
    expect(minedAlone!.removed).toBeUndefined();

    for (let i = 0; i < 3; i++) {
      const op = await send(i % 2 === 0 ? a : b, p[i % 2]!, p[(i + 1) % 2]!, '9');
      await mined(a, op.ophash);
    }
    expect(await call(c.url, 'nodeStart')).toBe(true);
    const again = await mined(a, lonely.ophash);
    await converged([a, b, c]);

    const heard = await socket.waitNotifications(ops, 3, 30_000);
    expect(heard[1]).toEqual({ ...minedAlone, removed: true });
    const remined = heard.slice(2).find((op) => op.ophash === again.ophash);
    expect(remined).toMatchObject({ block: again.block, opblock: again.opblock });
    expect(remined!.removed).toBeUndefined();

    // newBlocks: the branch's block at its height, then the adopted chain's block at that height.
    const atHeight = socket.notifications(blocks).filter((info) => info.block === branch.block);
    expect(atHeight.length).toBeGreaterThanOrEqual(2);
    expect(atHeight[0]!.hash).toBe(branch.hash);
    const adopted = await call<{ hash: string }>(c.url, 'getBlockInfo', { block: branch.block });
    expect(atHeight.at(-1)!.hash).toBe(adopted.hash);
  });
});
