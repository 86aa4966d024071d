import { Writable } from 'node:stream';
import {
  COIN,
  fundAndActivate,
  mine,
  namespacedWallet,
  openTempChain,
  payFromDev,
  type TempChain,
} from '@chain/ledger/testing';
import type { PushChannel, PushSubscription } from '@chain/rpc-jayson';
import { createTokenRequest } from '@chain/tokens';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createNodeRegistry } from '../registry';
import { createPushHub, type PushHub } from './push-hub';

// The push hub on a real chain (LevelDB in a temp dir, the node's operation types): one
// subscription's failure is logged and reported, and every other subscription is still served.

let temp: TempChain | undefined;
let hub: PushHub | undefined;
afterEach(async () => {
  hub?.close();
  await temp?.cleanup();
  hub = undefined;
  temp = undefined;
});

const issuer = namespacedWallet('push-hub', 'issuer');
const receiver = namespacedWallet('push-hub', 'receiver');

/** A connection's push side: what each subscription was sent; `failing` ones throw on send. */
function channel(failing = false) {
  const sent = new Map<string, unknown[]>();
  const ended: string[] = [];
  let next = 0;
  const subscriptions = new Map<string, { end: () => void }>();
  const push: PushChannel = {
    open(stop) {
      const id = `0x${(next++).toString(16)}`;
      sent.set(id, []);
      let active = true;
      subscriptions.set(id, {
        end: () => {
          active = false;
          ended.push(id);
          stop();
        },
      });
      const subscription: PushSubscription = {
        id,
        get active() {
          return active;
        },
        send(result) {
          if (failing) throw new Error('the transport failed');
          if (active) sent.get(id)!.push(result);
        },
        drained: async () => {},
      };
      return subscription;
    },
    close(id) {
      const subscription = subscriptions.get(id);
      subscription?.end();
      return subscription !== undefined;
    },
  };
  return { push, sent, ended };
}

function logged() {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        records.push(JSON.parse(line));
      }
      done();
    },
  });
  return { log: createLogger('info', stream, 'json'), records };
}

async function setup() {
  temp = await openTempChain({ registry: createNodeRegistry(), dirPrefix: 'push-hub-' });
  const { log, records } = logged();
  const errors: unknown[] = [];
  hub = createPushHub(temp.chain, log, { onError: (err) => errors.push(err) });
  return { chain: temp.chain, hub, records, errors };
}

describe('push hub', () => {
  it('a subscription that fails costs a newBlocks client beside it nothing, and is logged and reported', async () => {
    const { chain, hub, records, errors } = await setup();
    const broken = channel(true);
    const good = channel();
    hub.subscribe({ event: 'newBlocks' }, broken.push);
    const id = hub.subscribe({ event: 'newBlocks' }, good.push);
    hub.subscribe({ event: 'pendingOperations' }, broken.push);
    const pendingId = hub.subscribe({ event: 'pendingOperations' }, good.push);

    await payFromDev(chain, receiver.address, 1n);
    const block = await mine(chain);

    expect(good.sent.get(id)).toEqual([block]);
    expect(good.sent.get(pendingId)).toHaveLength(1);
    expect(errors).toHaveLength(2);
    const failures = records.filter((r) => r.level === 'error' || r.level === 50);
    expect(failures.map((r) => r.msg)).toEqual([
      'push: a pending operation could not be sent to a subscription',
      `push: block ${block!.block} could not be sent to a subscription`,
    ]);
  });

  it('walletOperations live and replayed across a createToken block (no senders, no receivers)', async () => {
    const { chain, hub, errors } = await setup();
    await fundAndActivate(chain, issuer, 10n * COIN);
    const live = channel();
    const liveId = hub.subscribe(
      { event: 'walletOperations', wallet: receiver.address },
      live.push,
    );
    const blocks = channel();
    const blocksId = hub.subscribe({ event: 'newBlocks' }, blocks.push);
    await chain.signAndSubmit(
      createTokenRequest(
        { signer: issuer.address, privateKey: issuer.privateKey },
        {
          advanced: false,
          decimal: 0,
          supply: 100n,
          name: 'Hub',
          symbol: 'HUB',
          summary: 'push hub test',
        },
      ),
    );
    const created = (await mine(chain))!;
    await payFromDev(chain, receiver.address, 1n);
    const paid = (await mine(chain))!;

    const ops = await chain.blockOperations(created.block);
    expect(ops.map((op) => [op.optype, 'senders' in op])).toEqual([[6, false]]);
    expect(blocks.sent.get(blocksId)!.map((b) => (b as { block: number }).block)).toEqual([
      created.block,
      paid.block,
    ]);
    const payment = await chain.blockOperations(paid.block);
    expect(live.sent.get(liveId)).toEqual(payment);

    const replayed = channel();
    const replayId = hub.subscribe(
      { event: 'walletOperations', wallet: issuer.address, fromBlock: 0 },
      replayed.push,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const issuerOps = [];
    for (let h = 1; h <= paid.block; h++) {
      for (const op of await chain.blockOperations(h)) {
        if (
          op.signer_account === issuer.address ||
          op.receivers?.some((r) => r.account === issuer.address)
        )
          issuerOps.push(op);
      }
    }
    expect(issuerOps.map((op) => op.optype)).toEqual([2, 5, 6]);
    expect(replayed.sent.get(replayId)).toEqual(issuerOps);
    expect(errors).toEqual([]);
  });

  it('a replay that fails ends its subscription (logged, reported) instead of going silent', async () => {
    const { chain, hub, records, errors } = await setup();
    await payFromDev(chain, receiver.address, 1n);
    await mine(chain);
    const broken = channel(true);
    const id = hub.subscribe({ event: 'newBlocks', fromBlock: 0 }, broken.push);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(broken.ended).toEqual([id]);
    expect(hub.size()).toBe(0);
    expect(errors).toHaveLength(1);
    expect(records.some((r) => r.msg === 'push replay failed: the subscription is ended')).toBe(
      true,
    );
  });
});
