import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mined, type OperationObject, waitFor } from './harness/chain';
import {
  type BlockSummary,
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

// Clique across real processes. Each producer's key is in its own node's key store, loaded at start
// with --mine-wallet; the genesis (chain-node init) names the producers, in turn by account number
// (the order given to init): producer i is in turn at heights h with h mod n = i.
const BLOCK_TIME = ['--block-time', '100'];
const dirs: string[] = [];
const nodes: NetworkNode[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
  await Promise.all(dirs.map(removeDatadir));
});

async function producerNode(
  key: TestKey,
  genesis: string,
  peers: NetworkNode[],
  datadir?: string,
): Promise<NetworkNode> {
  const dir = datadir ?? (await datadirWithKeys([key]));
  if (datadir === undefined) dirs.push(dir);
  const node = await startNetworkNode({
    datadir: dir,
    genesis,
    peers,
    mineWallets: [key.address],
    args: BLOCK_TIME,
  });
  nodes.push(node);
  return node;
}

/** Waits until every node is connected to `peers` others and ready (at the network's tip). */
async function meet(group: readonly NodeProcess[], peers: number): Promise<void> {
  await waitFor('the producers to meet', async () => {
    for (const node of group) {
      const status = await call<{ ready: boolean; netstats: { active: number } }>(
        node.url,
        'nodeStatus',
      );
      if (!status.ready || status.netstats.active !== peers) return false;
    }
    return true;
  });
}

/** A transfer signed by `from` (a producer whose key is in `node`'s key store). */
function send(node: NodeProcess, from: TestKey, to: TestKey, amount = '1') {
  return call<OperationObject>(node.url, 'sendTo', {
    sender: from.address,
    passphrase: MINE_PASSPHRASE,
    receiver: to.address,
    amount,
  });
}

async function blocks(node: NodeProcess, from: number, to: number): Promise<BlockSummary[]> {
  const out: BlockSummary[] = [];
  for (let block = from; block <= to; block++) {
    out.push(await call<BlockSummary>(node.url, 'getBlockInfo', { block }));
  }
  return out;
}

describe('two producers', () => {
  const p = [newTestKey(), newTestKey()];
  let a: NetworkNode;
  let b: NetworkNode;

  beforeAll(async () => {
    const dir = await makeDatadir();
    dirs.push(dir);
    const genesis = await initGenesis(dir, p);
    a = await producerNode(p[0]!, genesis, []);
    b = await producerNode(p[1]!, genesis, [a]);
    await meet([a, b], 1);
  });

  it('take turns: each block is signed by the producer in turn, alternating', async () => {
    for (let i = 0; i < 6; i++) {
      // Submitted on either node, signed by either producer: the one in turn mines it.
      const node = i % 2 === 0 ? a : b;
      const op = await send(node, p[i % 2]!, p[(i + 1) % 2]!);
      await mined(a, op.ophash);
    }
    const head = await converged([a, b]);
    expect(head.block).toBe(6);
    const signers = (await blocks(a, 1, 6)).map((block) => block.hmr);
    // Height h is producer (h mod 2)'s turn.
    expect(signers).toEqual([1, 2, 3, 4, 5, 6].map((h) => p[h % 2]!.address));
  });
});

describe('three producers', () => {
  const p = [newTestKey(), newTestKey(), newTestKey()];
  let genesis: string;
  let a: NetworkNode;
  let b: NetworkNode;
  let c: NetworkNode;
  let cDatadir: string;

  beforeAll(async () => {
    const dir = await makeDatadir();
    dirs.push(dir);
    genesis = await initGenesis(dir, p);
    a = await producerNode(p[0]!, genesis, []);
    b = await producerNode(p[1]!, genesis, [a]);
    cDatadir = await datadirWithKeys([p[2]!]);
    dirs.push(cDatadir);
    c = await producerNode(p[2]!, genesis, [a, b], cDatadir);
    await meet([a, b, c], 2);
  });

  it('go on out of turn while one is killed, and converge when it comes back', async () => {
    await mined(a, (await send(a, p[0]!, p[1]!)).ophash);
    const before = await converged([a, b, c]);
    expect(await c.stop('SIGKILL')).toBe('SIGKILL');
    nodes.splice(nodes.indexOf(c), 1);

    // Enough blocks that c's turn comes up: a or b signs it out of turn.
    for (let i = 0; i < 4; i++) {
      const op = await send(i % 2 === 0 ? a : b, p[i % 2]!, p[2]!);
      await mined(a, op.ophash);
    }
    const during = await converged([a, b]);
    expect(during.block).toBe(before.block + 4);
    const produced = await blocks(a, before.block + 1, during.block);
    const cTurns = produced.filter((block) => block.block % 3 === 2);
    expect(cTurns.length).toBeGreaterThan(0);
    for (const block of cTurns) expect([p[0]!.address, p[1]!.address]).toContain(block.hmr);
    expect(produced.map((block) => block.hmr)).not.toContain(p[2]!.address);

    // c comes back on its data directory, with its mine wallet, and catches up.
    c = await producerNode(p[2]!, genesis, [a, b], cDatadir);
    await converged([a, b, c]);
    // and it takes its turns again: an operation submitted to c is mined.
    const op = await send(c, p[2]!, p[0]!);
    const onA = await mined(a, op.ophash);
    expect(onA.block).toBeGreaterThan(during.block);
    await converged([a, b, c]);
  });

  it('a partitioned producer rejoins by reorganisation, and no operation is lost', async () => {
    const start = await converged([a, b, c]);
    expect(await call(c.url, 'nodeStop')).toBe(true);
    // On its own, c mines what it is given into a branch of its own (a block, then the
    // recent-signer rule stops it: one producer of three is not enough to build a chain).
    const lonely = await send(c, p[2]!, p[0]!, '7');
    const branch = await waitFor(
      'c to mine on its own',
      async () => {
        const top = await tip(c);
        return top.block > start.block ? top : undefined;
      },
      15_000,
    );
    expect(branch.hmr).toBe(p[2]!.address);
    const stranded = await send(c, p[2]!, p[1]!, '8'); // stays pending on c
    // Meanwhile a and b build a heavier chain.
    const majority: OperationObject[] = [];
    for (let i = 0; i < 3; i++) {
      const op = await send(i % 2 === 0 ? a : b, p[i % 2]!, p[2]!, '9');
      majority.push(op);
      await mined(a, op.ophash);
    }
    const heavier = await converged([a, b]);
    expect(heavier.block).toBeGreaterThanOrEqual(branch.block);
    expect((await blocks(a, branch.block, branch.block))[0]!.hash).not.toBe(branch.hash);

    // Heal: c rejoins, drops its branch for the heavier chain, and its operations get mined there.
    expect(await call(c.url, 'nodeStart')).toBe(true);
    for (const op of [lonely, stranded, ...majority]) {
      const onA = await mined(a, op.ophash);
      expect(onA.block).toBeGreaterThan(start.block);
    }
    const healed = await converged([a, b, c]);
    expect((await blocks(c, branch.block, branch.block))[0]!.hash).not.toBe(branch.hash);
    for (const op of [lonely, stranded, ...majority]) {
      const [onC] = await call<OperationObject[]>(c.url, 'findOperation', { ophash: op.ophash });
      expect(onC!.block).toBeGreaterThan(0);
      expect(onC!.block).toBeLessThanOrEqual(healed.block);
    }
    expect(await call(c.url, 'getPendingCount')).toBe(0);
  });
});
