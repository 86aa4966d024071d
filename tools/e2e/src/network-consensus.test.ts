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
// with --mine-wallet; the genesis (chain-node init) names the producers, accounts 0, 1, ... in the
// order given to init. Block 1 is producer 1's turn (1 mod n); every later block is the turn of the
// producer after its parent's, by account number, wrapping around (DESIGN §4 as refined in
// docs/decisions.md).
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
    // Block 1 is producer 1's turn, block 2 the turn of the one after it (wrapping: producer 0), ...
    expect(signers).toEqual([1, 0, 1, 0, 1, 0].map((i) => p[i]!.address));
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
    const withParent = await blocks(a, before.block, during.block);
    const produced = withParent.slice(1);
    // c's turns: the blocks after one by b (the producer before c). a signs them out of turn.
    const cTurns = produced.filter((_, i) => withParent[i]!.hmr === p[1]!.address);
    expect(cTurns.length).toBeGreaterThan(0);
    for (const block of cTurns) expect(block.hmr).toBe(p[0]!.address);
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
    // Alone, c can sign only if it did not sign the head (the recent-signer rule). The block that
    // ended the previous test may be c's (it was c's turn after one by b): then one more, which is
    // a's turn (the producer after c, wrapping).
    if ((await converged([a, b, c])).hmr === p[2]!.address) {
      await mined(a, (await send(a, p[0]!, p[1]!)).ophash);
    }
    const start = await converged([a, b, c]);
    expect(start.hmr).not.toBe(p[2]!.address);
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
