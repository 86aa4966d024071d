import { createClient, type PushedKeyStoreOperation } from '@chain/rpc-client';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { COIN, mined, type OperationObject, waitFor } from './harness/chain';
import { type Credit, creditDeposits } from './harness/exchange-back-end';
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

// The exchange back end of docs/integration.md across a reorganisation (issue 41's done-when):
// three producers; c is the exchange's node, its key store holding the deposit wallets. Cut off,
// c mines a deposit into a branch the other two outweigh; when c rejoins and takes their chain,
// the key-store push says the deposit was removed, then mined again, and the reads at N
// confirmations credit it once, in the block it ended in (and never on the dropped branch).
const CONFIRMATIONS = 2;
const dirs: string[] = [];
const nodes: NetworkNode[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
  await Promise.all(dirs.map(removeDatadir));
});

async function producerNode(
  keys: TestKey[],
  genesis: string,
  peers: NetworkNode[],
): Promise<NetworkNode> {
  const dir = await datadirWithKeys(keys);
  dirs.push(dir);
  const node = await startNetworkNode({
    datadir: dir,
    genesis,
    peers,
    mineWallets: [keys[0]!.address],
    args: ['--block-time', '100'],
  });
  nodes.push(node);
  return node;
}

function send(node: NodeProcess, from: TestKey, to: string, amount: string) {
  return call<OperationObject>(node.url, 'sendTo', {
    sender: from.address,
    passphrase: MINE_PASSPHRASE,
    receiver: to,
    amount,
  });
}

describe('the exchange back end across a reorganisation', () => {
  it('credits a deposit of a dropped branch once, in the block it ended in', async () => {
    const p = [newTestKey(), newTestKey(), newTestKey()];
    const deposit = [newTestKey(), newTestKey()];
    const dir = await makeDatadir();
    dirs.push(dir);
    const genesis = await initGenesis(dir, p);
    const a = await producerNode([p[0]!], genesis, []);
    const b = await producerNode([p[1]!], genesis, [a]);
    const c = await producerNode([p[2]!, ...deposit], genesis, [a, b]);
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
    const wallets = new Set(deposit.map((key) => key.address));
    const exchange = createClient({ url: c.url, WebSocket });
    const pushed: PushedKeyStoreOperation[] = [];
    const subscription = exchange.subscribe('keyStoreOperations', { fromBlock: 1 }, (op) => {
      if (op.optype === 2 && op.receivers.some((r) => wallets.has(r.account))) pushed.push(op);
    });
    await subscription.ready;

    // A first deposit on the common chain; c may sign alone only if it did not sign the head.
    const first = await mined(a, (await send(a, p[0]!, deposit[0]!.address, '3')).ophash);
    if ((await converged([a, b, c])).hmr === p[2]!.address) {
      await mined(a, (await send(a, p[0]!, p[1]!.address, '1')).ophash);
    }
    const start = await converged([a, b, c]);

    // c cut off: a deposit mined on its own branch only.
    expect(await call(c.url, 'nodeStop')).toBe(true);
    const lonely = await send(c, p[2]!, deposit[1]!.address, '7');
    const branch = await waitFor('c to mine on its own', async () => {
      const top = await tip(c);
      return top.block > start.block ? top : undefined;
    });
    await waitFor('push on c to hear the branch deposit', async () =>
      pushed.some((op) => op.block === branch.block),
    );
    for (let i = 0; i < 3; i++) {
      await mined(
        a,
        (await send(i % 2 === 0 ? a : b, p[i % 2]!, p[(i + 1) % 2]!.address, '1')).ophash,
      );
    }
    expect(await call(c.url, 'nodeStart')).toBe(true);
    const again = await mined(a, lonely.ophash);
    await converged([a, b, c]);
    // Confirmations for the re-mined deposit.
    for (let i = 0; i < CONFIRMATIONS; i++) {
      await mined(a, (await send(a, p[0]!, p[1]!.address, '1')).ophash);
    }
    await converged([a, b, c]);

    const credited = new Map<string, Credit>();
    await waitFor('both deposits credited on c', async () => {
      await creditDeposits(exchange, wallets, 1, CONFIRMATIONS, credited);
      return credited.size === 2;
    });
    await creditDeposits(exchange, wallets, 1, CONFIRMATIONS, credited);
    expect([...credited.values()].map((credit) => [credit.wallet, credit.amount]).sort()).toEqual(
      [
        [deposit[0]!.address, 3n * COIN],
        [deposit[1]!.address, 7n * COIN],
      ].sort(),
    );
    expect(credited.get(lonely.ophash.slice(8))?.block).toBe(again.block);
    expect(credited.get(first.ophash.slice(8))?.block).toBe(first.block);

    // Push: the branch's deposit, then removed, then mined again in the adopted chain.
    await waitFor('push to hear the deposit mined again', async () =>
      pushed.some(
        (op) =>
          op.block === again.block &&
          op.removed !== true &&
          op.ophash.slice(8) === lonely.ophash.slice(8),
      ),
    );
    const lonelyPushes = pushed.filter((op) => op.ophash.slice(8) === lonely.ophash.slice(8));
    expect(lonelyPushes.map((op) => [op.block, op.removed === true])).toEqual([
      [branch.block, false],
      [branch.block, true],
      [again.block, false],
    ]);
    await subscription.unsubscribe();
    exchange.close();
  }, 180_000);
});
