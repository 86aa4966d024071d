import { join } from 'node:path';
import { Writable } from 'node:stream';
import { addressFromPublicKey } from '@chain/crypto';
import { createKeyStore, type KeyStore } from '@chain/keystore';
import {
  COIN,
  devWallet,
  mine,
  namespacedWallet,
  openTempChain,
  payFromDev,
  type TempChain,
} from '@chain/ledger/testing';
import type { PushChannel, PushSubscription } from '@chain/rpc-jayson';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createPushHub, type PushHub } from '../push/push-hub';
import { createNodeRegistry } from '../registry';
import { type KeyStoreLookup, keyStorePage, parseKeyStoreCursor } from './keystore-operations';

// Every operation touching a key-store wallet, on a real chain and a real key store (LevelDB in
// temp dirs): the paged read and the one push subscription for the whole store.

const deposit = ['a', 'b', 'c'].map((label) => namespacedWallet('keystore-ops', label));
const outsider = namespacedWallet('keystore-ops', 'outsider');
const LIGHT_SCRYPT = { N: 2 ** 4, r: 8, p: 1 };

let temp: TempChain;
let keystore: KeyStore;
let hub: PushHub | undefined;

beforeEach(async () => {
  temp = await openTempChain({ dirPrefix: 'keystore-ops-', registry: createNodeRegistry() });
  keystore = createKeyStore({
    dir: join(temp.dir, 'keystore'),
    addressOf: (publicKey) => addressFromPublicKey('CH', publicKey),
    scrypt: LIGHT_SCRYPT,
  });
  await keystore.open();
  for (const wallet of deposit) await keystore.importKey(wallet.privateKey, 'pw');
  // Block 1: deposits to a, the outsider, b. Block 2: to the outsider, c.
  for (const to of [deposit[0]!, outsider, deposit[1]!])
    await payFromDev(temp.chain, to.address, COIN);
  await mine(temp.chain);
  for (const to of [outsider, deposit[2]!]) await payFromDev(temp.chain, to.address, 2n * COIN);
  await mine(temp.chain);
});

afterEach(async () => {
  hub?.close();
  hub = undefined;
  await keystore.close();
  await temp.cleanup();
});

describe('keyStorePage', () => {
  it('lists only the operations touching key-store wallets, oldest first, paged by cursor', async () => {
    const first = await keyStorePage(temp.chain, keystore, { height: 1, index: 0 }, 2);
    expect(first.operations.map((op) => op.wallets)).toEqual([
      [deposit[0]!.address],
      [deposit[1]!.address],
    ]);
    expect(first.operations.map((op) => [op.block, op.confirmations])).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect(first.cursor).toBe('2.1');
    const next = await keyStorePage(temp.chain, keystore, parseKeyStoreCursor(first.cursor!)!, 2);
    expect(next.operations.map((op) => [op.block, op.opblock, op.wallets])).toEqual([
      [2, 1, [deposit[2]!.address]],
    ]);
    expect(next.operations[0]!.amount).toBe((2n * COIN).toString());
    expect(next.cursor).toBeNull();
    expect(next.toBlock).toBe(2);
  });

  it('names the signer when a key-store wallet sends (a withdrawal)', async () => {
    await keystore.importKey(devWallet.privateKey, 'pw');
    const page = await keyStorePage(temp.chain, keystore, { height: 2, index: 0 }, 10);
    expect(page.operations.map((op) => op.wallets)).toEqual([
      [devWallet.address],
      [devWallet.address, deposit[2]!.address],
    ]);
  });

  // A reorganisation between the page's reads (here: while a slice of block `during` is looked up
  // in the key store, the chain is rolled back to block 1): the page is the chain as it is when
  // the page ends, nothing of the block gone, confirmations from the head then. Before, the page
  // asked for block 2 past the new head and the call failed ("block 2 does not exist"), or listed
  // block 2's deposit, gone, with a confirmation.
  it.each([1, 2])(
    'ends at the head when a rollback takes blocks off during block %i',
    async (during) => {
      let lookups = 0;
      const rollingBack: KeyStoreLookup = {
        async hasMany(addresses) {
          if (++lookups === during) await temp.chain.rollback(1);
          return keystore.hasMany(addresses);
        },
      };
      const page = await keyStorePage(temp.chain, rollingBack, { height: 1, index: 0 }, 10);
      expect(page.operations.map((op) => [op.block, op.confirmations, op.wallets])).toEqual([
        [1, 1, [deposit[0]!.address]],
        [1, 1, [deposit[1]!.address]],
      ]);
      expect(page.cursor).toBeNull();
      expect(page.toBlock).toBe(1);
    },
  );

  it('refuses a cursor it did not make', () => {
    expect(parseKeyStoreCursor('2.1')).toEqual({ height: 2, index: 1 });
    expect(parseKeyStoreCursor('2')).toBeUndefined();
    expect(parseKeyStoreCursor('x.1')).toBeUndefined();
  });
});

/** A connection's push side, collecting what its subscriptions were sent. */
function channel() {
  const sent: unknown[] = [];
  const push: PushChannel = {
    open() {
      const subscription: PushSubscription = {
        id: '0x1',
        active: true,
        send: (result) => sent.push(result),
        drained: async () => {},
      };
      return subscription;
    },
    close: () => true,
  };
  return { push, sent };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('keyStoreOperations push', () => {
  const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));

  it('replays from a block, then goes live, with nothing twice at the seam', async () => {
    hub = createPushHub(temp.chain, silent, { keystore });
    const { push, sent } = channel();
    hub.subscribe({ event: 'keyStoreOperations', fromBlock: 1 }, push);
    await until(() => sent.length >= 3);
    await payFromDev(temp.chain, deposit[0]!.address, 3n * COIN);
    await payFromDev(temp.chain, outsider.address, 3n * COIN);
    await mine(temp.chain);
    await until(() => sent.length >= 4);
    await new Promise((r) => setTimeout(r, 50));
    const seen = sent as { block: number; wallets: string[]; amount: string }[];
    expect(seen.map((op) => [op.block, op.wallets[0]])).toEqual([
      [1, deposit[0]!.address],
      [1, deposit[1]!.address],
      [2, deposit[2]!.address],
      [3, deposit[0]!.address],
    ]);
  });

  it('sends a rolled-back block as removed, then its replacement', async () => {
    hub = createPushHub(temp.chain, silent, { keystore });
    const { push, sent } = channel();
    hub.subscribe({ event: 'keyStoreOperations', fromBlock: 2 }, push);
    await until(() => sent.length >= 1);
    await temp.chain.rollback(1);
    await mine(temp.chain);
    await until(() => sent.length >= 3);
    const seen = sent as { block: number; removed?: true; wallets: string[] }[];
    expect(seen.map((op) => [op.block, op.removed ?? false, op.wallets[0]])).toEqual([
      [2, false, deposit[2]!.address],
      [2, true, deposit[2]!.address],
      [2, false, deposit[2]!.address],
    ]);
  });
});
