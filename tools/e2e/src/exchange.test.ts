import { readFile } from 'node:fs/promises';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { createClient, type PushedKeyStoreOperation } from '@chain/rpc-client';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { COIN, mined, type OperationObject, waitFor } from './harness/chain';
import {
  type Credit,
  creditDeposits,
  depositsSince,
  detectDeposits,
} from './harness/exchange-back-end';
import {
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
// holding the deposit wallets (made by newWallet) and the hot wallet (c's producer key). Deposits
// are detected by the one key-store push subscription and credited from the key-store reads at N
// confirmations (empty blocks keep the count going), each wallet's own reads agreeing; c is killed
// with SIGKILL right after a withdrawal was sent, whose reply the back end treats as lost and
// retries with its reference once c is back; then c, cut off, mines a deposit into a branch the
// other two outweigh. Every deposit is credited exactly once, in the block it ended in, push saw
// each one (the dropped one mined, removed, mined again where it ended) and the withdrawal is
// paid once.
const CONFIRMATIONS = 3;
const DEPOSIT_WALLETS = 4;
const DEPOSITS = 12;
const PRODUCER_ARGS = ['--block-time', '100', '--empty-block-time', '300'];
const GUIDE = new URL('../../../docs/integration.md', import.meta.url);
const BACK_END = new URL('./harness/exchange-back-end.ts', import.meta.url);
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

/** Each export of the back end's file, from its doc comment to its closing brace, unexported. */
function backEndCode(source: string): string[] {
  const exported =
    /(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)?export (?:async function|function|interface)[\s\S]*?\n\}\n/g;
  return [...source.matchAll(exported)].map((match) => match[0].replace(/^export /m, ''));
}

describe('an exchange back end from docs/integration.md', () => {
  it('is the guide’s code: each part of the back end is quoted in the guide', async () => {
    const [guide, backEnd] = await Promise.all([
      readFile(GUIDE, 'utf8'),
      readFile(BACK_END, 'utf8'),
    ]);
    const code = backEndCode(backEnd);
    expect(code).toHaveLength(4);
    for (const part of code) expect(guide).toContain(part);
  });

  it('credits every deposit once across a kill -9 and a reorganisation, and pays a retried withdrawal once', async () => {
    const p = [newTestKey(), newTestKey(), newTestKey()];
    // c's producer wallet is the hot wallet (its key is on chain from genesis: no activation).
    const hot = p[2]!;
    const dir = await makeDatadir();
    dirs.push(dir);
    const genesis = await initGenesis(dir, p);
    const start = async (key: TestKey, peers: NetworkNode[], extra: object = {}) => {
      const datadir = await datadirWithKeys([key]);
      dirs.push(datadir);
      const node = await startNetworkNode({
        datadir,
        genesis,
        peers,
        mineWallets: [key.address],
        args: PRODUCER_ARGS,
        ...extra,
      });
      nodes.push(node);
      return node;
    };
    const a = await start(p[0]!, []);
    const b = await start(p[1]!, [a]);
    // c, the exchange's node, makes no empty blocks of its own: cut off, it signs only the deposit.
    const rpcPort = await freePort();
    const cOptions = { args: ['--block-time', '100'], rpcPort };
    let c = await start(hot, [a, b], cOptions);
    const restartC = async () => {
      await c.stop('SIGKILL');
      c = await startNetworkNode({
        datadir: c.datadir,
        genesis,
        peers: [a, b],
        host: c.host,
        mineWallets: [hot.address],
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

    const exchange = createClient({
      url: c.url,
      WebSocket,
      reconnectDelayMs: 500,
      maxReconnectDelayMs: 1000,
    });
    const wallets = new Set<string>();
    for (let i = 0; i < DEPOSIT_WALLETS; i++) {
      wallets.add((await exchange.wallet.newWallet({ passphrase: 'deposit' })).wallet);
    }
    const deposit = [...wallets];
    // Push: what the back end believes is on the chain (a removed deposit leaves it); every
    // notification kept besides, to see what the stream delivered.
    const detected = new Map<string, number>();
    const onDeposit = detectDeposits(wallets, detected);
    const pushed: PushedKeyStoreOperation[] = [];
    const subscription = exchange.subscribe('keyStoreOperations', { fromBlock: 1 }, (op) => {
      pushed.push(op);
      onDeposit(op);
    });
    await subscription.ready;

    // Customers deposit through a; in the middle, a withdrawal from c, and c is killed at once.
    const sent = new Map<string, bigint>();
    const ophashes: string[] = [];
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
      const op = await send(a, p[0]!, deposit[i % deposit.length]!, `0.${i + 10}`);
      sent.set(idOf(op.ophash), BigInt(i + 10) * (COIN / 100n));
      ophashes.push(op.ophash);
    }
    await meet();

    // Before c is cut off: every operation mined as c sees it, its pool empty (so that c signs
    // nothing more by itself), and the head signed by another (so that c may sign alone: Clique
    // lets one of three sign one block in two). Cut off, c then signs exactly one block, with the
    // deposit it is sent.
    ophashes.push(first!.ophash);
    await waitFor(
      'c to have mined everything, its pool empty, the head not its own',
      async () => {
        for (const ophash of ophashes) {
          const [found] = await call<OperationObject[]>(c.url, 'findOperation', { ophash });
          if (found === undefined || found.block === 0) return false;
        }
        if ((await call<number>(c.url, 'getPendingCount')) !== 0) return false;
        return (await tip(c)).hmr !== hot.address;
      },
      30_000,
    );
    expect(await call(c.url, 'nodeStop')).toBe(true);
    const cut = await tip(c);
    expect(cut.hmr).not.toBe(hot.address);
    const lonely = await send(c, hot, deposit[0]!, '7');
    sent.set(idOf(lonely.ophash), 7n * COIN);
    const branch = await waitFor('c to mine on its own', async () => {
      const top = await tip(c);
      return top.block > cut.block ? top : undefined;
    });
    expect([branch.block, branch.hmr]).toEqual([cut.block + 1, hot.address]);
    const branchOps = await call<OperationObject[]>(c.url, 'getBlockOperations', {
      block: branch.block,
    });
    expect(branchOps.map((op) => idOf(op.ophash))).toEqual([idOf(lonely.ophash)]);
    await waitFor('push on c to hear the branch deposit', async () =>
      pushed.some((op) => op.block === branch.block && idOf(op.ophash) === idOf(lonely.ophash)),
    );
    // a and b outweigh c's branch (their empty blocks), then c rejoins and takes their chain.
    await waitFor(
      'a and b to pass the branch',
      async () => (await tip(a)).block > branch.block + 2,
    );
    expect(await call(c.url, 'nodeStart')).toBe(true);

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
    // The branch's deposit is credited where it ended, on the adopted chain (the branch dropped).
    const ended = await mined(a, lonely.ophash);
    expect(credited.get(idOf(lonely.ophash))?.block).toBe(ended.block);
    const atBranch = await call<{ hash: string }>(c.url, 'getBlockInfo', { block: branch.block });
    expect(atBranch.hash).not.toBe(branch.hash);

    // Each wallet's own reads list the same deposits, in the same blocks, once.
    for (const wallet of deposit) {
      const own = await depositsSince(exchange, wallet, 1);
      const expected = [...credited].filter(([, credit]) => credit.wallet === wallet);
      expect(own.map((op) => [idOf(op.ophash), op.block]).sort()).toEqual(
        expected.map(([id, credit]) => [id, credit.block]).sort(),
      );
    }

    // Push saw every deposit where it ended; the branch's one mined, removed, mined again.
    await waitFor('push to have every deposit where it ended', async () =>
      [...credited].every(([id, credit]) => detected.get(id) === credit.block),
    );
    expect([...detected.keys()].sort()).toEqual([...sent.keys()].sort());
    // Each removal takes it off the block it was last pushed in (more than one should c have lost
    // a race for a block on rejoining: its block dropped too, the deposit mined once more).
    const lonelyPushes = pushed
      .filter((op) => idOf(op.ophash) === idOf(lonely.ophash))
      .map((op) => [op.block, op.removed === true]);
    const minedIn = lonelyPushes.filter(([, removed]) => !removed).map(([block]) => block);
    expect(minedIn[0]).toBe(branch.block);
    expect(minedIn.at(-1)).toBe(ended.block);
    expect(lonelyPushes).toEqual(
      minedIn.flatMap((block, i) =>
        i < minedIn.length - 1
          ? [
              [block, false],
              [block, true],
            ]
          : [[block, false]],
      ),
    );

    // The withdrawal was paid once.
    const paid = await call<{ balance: string }>(a.url, 'getWalletInfo', { wallet: customer });
    expect(BigInt(paid.balance)).toBe(5n * COIN);
    await subscription.unsubscribe();
    exchange.close();
  }, 180_000);
});
