import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
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
import { call, freePort, makeDatadir, type NodeProcess } from './harness/node-process';

// Issue 41's done-when in one scenario: an exchange's back end written from docs/integration.md
// (harness/exchange-back-end.ts is the guide's code) on node c of three producers, c's key store
// holding the deposit wallets and the hot wallet (c's producer key). Deposits are detected by the one key-store push
// subscription and credited from the key-store reads at N confirmations (empty blocks keep the
// count going); c is killed with SIGKILL right after a withdrawal was sent, whose reply the back end
// treats as lost and retries with its reference once c is back; then c, cut off, mines a deposit
// into a branch the other two outweigh. Every deposit is credited exactly once, in the block it
// ended in, push saw each one (the dropped one removed, then mined again) and the withdrawal is
// paid once.
const CONFIRMATIONS = 3;
const DEPOSITS = 12;
const PRODUCER_ARGS = ['--block-time', '100', '--empty-block-time', '300'];
const dirs: string[] = [];
const nodes: NetworkNode[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
  await Promise.all(dirs.map(removeDatadir));
});

function send(node: NodeProcess, from: TestKey, to: string, amount: string) {
  return call<OperationObject>(node.url, 'sendTo', {
    sender: from.address,
    passphrase: MINE_PASSPHRASE,
    receiver: to,
    amount,
  });
}

/** The ophash without its block number: the operation's name in whichever block it ends. */
const idOf = (ophash: string) => ophash.slice(8);

describe('an exchange back end from docs/integration.md', () => {
  it('credits every deposit once across a kill -9 and a reorganisation, and pays a retried withdrawal once', async () => {
    const p = [newTestKey(), newTestKey(), newTestKey()];
    // c's producer wallet is the hot wallet (its key is on chain from genesis: no activation).
    const hot = p[2]!;
    const deposit = [newTestKey(), newTestKey(), newTestKey(), newTestKey()];
    const dir = await makeDatadir();
    dirs.push(dir);
    const genesis = await initGenesis(dir, p);
    const start = async (keys: TestKey[], peers: NetworkNode[], extra: object = {}) => {
      const datadir = await datadirWithKeys(keys);
      dirs.push(datadir);
      const node = await startNetworkNode({
        datadir,
        genesis,
        peers,
        mineWallets: [keys[0]!.address],
        args: PRODUCER_ARGS,
        ...extra,
      });
      nodes.push(node);
      return node;
    };
    const a = await start([p[0]!], []);
    const b = await start([p[1]!], [a]);
    // c, the exchange's node, makes no empty blocks of its own: cut off, it must sign the deposit.
    const rpcPort = await freePort();
    const cOptions = { args: ['--block-time', '100'], rpcPort };
    let c = await start([p[2]!, ...deposit], [a, b], cOptions);
    const restartC = async () => {
      await c.stop('SIGKILL');
      c = await startNetworkNode({
        datadir: c.datadir,
        genesis,
        peers: [a, b],
        host: c.host,
        mineWallets: [p[2]!.address],
        ...cOptions,
      });
      nodes.push(c);
    };
    const meet = () =>
      waitFor(
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
    await meet();

    const wallets = new Set(deposit.map((key) => key.address));
    const exchange = createClient({
      url: c.url,
      WebSocket,
      reconnectDelayMs: 500,
      maxReconnectDelayMs: 1000,
    });
    // Push: what the back end believes is on the chain (a removed deposit leaves it).
    const pushed: PushedKeyStoreOperation[] = [];
    const seen = new Map<string, number>();
    const subscription = exchange.subscribe('keyStoreOperations', { fromBlock: 1 }, (op) => {
      if (op.optype !== 2 || !op.receivers.some((r) => wallets.has(r.account))) return;
      pushed.push(op);
      if (op.removed === true) {
        if (seen.get(idOf(op.ophash)) === op.block) seen.delete(idOf(op.ophash));
      } else seen.set(idOf(op.ophash), op.block);
    });
    await subscription.ready;

    // Customers deposit through a; in the middle, a withdrawal from c, and c is killed at once.
    const sent = new Map<string, bigint>();
    const customer = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
    const withdrawal = {
      sender: hot.address,
      passphrase: MINE_PASSPHRASE,
      receiver: customer,
      amount: '5',
      reference: 'withdrawal-42',
    };
    let first: OperationObject | undefined;
    for (let i = 0; i < DEPOSITS; i++) {
      if (i === DEPOSITS / 2) {
        first = await exchange.operations.sendTo(withdrawal);
        await restartC();
        // The reply was lost: the retry carries the reference and gets the first operation back.
        const retried = await exchange.operations.sendTo(withdrawal);
        expect(idOf(retried.ophash)).toBe(idOf(first.ophash));
      }
      const op = await send(a, p[0]!, deposit[i % deposit.length]!.address, `0.${i + 10}`);
      sent.set(idOf(op.ophash), BigInt(i + 10) * (COIN / 100n));
    }
    await meet();

    // c cut off, the head not its own (so that it may sign alone): a deposit on its branch only.
    await waitFor('a head c did not sign', async () => {
      const head = await converged([a, b, c]);
      return head.hmr !== p[2]!.address;
    });
    expect(await call(c.url, 'nodeStop')).toBe(true);
    const cut = await tip(c);
    const lonely = await send(c, hot, deposit[0]!.address, '7');
    sent.set(idOf(lonely.ophash), 7n * COIN);
    const branch = await waitFor('c to mine on its own', async () => {
      const top = await tip(c);
      return top.block > cut.block ? top : undefined;
    });
    await waitFor('push on c to hear the branch deposit', async () =>
      pushed.some((op) => op.block === branch.block && idOf(op.ophash) === idOf(lonely.ophash)),
    );
    // a and b outweigh c's branch (their empty blocks), then c rejoins and takes their chain.
    await waitFor(
      'a and b to pass the branch',
      async () => (await tip(a)).block > branch.block + 2,
    );
    expect(await call(c.url, 'nodeStart')).toBe(true);
    const again = await mined(a, lonely.ophash);

    // Credit at N confirmations from the reads; again from the start: nothing twice.
    const credited = new Map<string, Credit>();
    await waitFor(
      'every deposit credited on c',
      async () => {
        await creditDeposits(exchange, wallets, 1, CONFIRMATIONS, credited);
        return credited.size === sent.size;
      },
      60_000,
    );
    await creditDeposits(exchange, wallets, 1, CONFIRMATIONS, credited);
    expect(credited.size).toBe(DEPOSITS + 1);
    for (const [id, amount] of sent) expect(credited.get(id)?.amount, id).toBe(amount);
    expect(credited.get(idOf(lonely.ophash))?.block).toBe(again.block);

    // Push saw every deposit where it ended; the branch's one mined, removed, mined again.
    await waitFor('push to have every deposit where it ended', async () =>
      [...credited].every(([id, credit]) => seen.get(id) === credit.block),
    );
    expect([...seen.keys()].sort()).toEqual([...sent.keys()].sort());
    const lonelyPushes = pushed.filter((op) => idOf(op.ophash) === idOf(lonely.ophash));
    expect(lonelyPushes.map((op) => [op.block, op.removed === true])).toEqual([
      [branch.block, false],
      [branch.block, true],
      [again.block, false],
    ]);

    // The withdrawal was paid once.
    const paid = await call<{ balance: string }>(a.url, 'getWalletInfo', { wallet: customer });
    expect(BigInt(paid.balance)).toBe(5n * COIN);
    await subscription.unsubscribe();
    exchange.close();
  }, 180_000);
});
