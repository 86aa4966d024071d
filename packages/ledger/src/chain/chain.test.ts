import { buildOpHash, decodeOpHash, opHashIdentity } from '@chain/ophash';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis } from '../genesis';
import {
  COIN,
  devWallet,
  fundAndActivate,
  makeTempDir,
  openTempChain,
  testWallet,
  transferTo,
} from '../testing/temp-chain';
import { createChain } from './chain';

const alice = testWallet('alice');
const bob = testWallet('bob');
const ACT = 10n ** 14n;
const DEV_START = 10n ** 27n;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempChain(...args: Parameters<typeof openTempChain>) {
  const t = await openTempChain(...args);
  cleanups.push(t.cleanup);
  return t;
}

const send = (chain: Awaited<ReturnType<typeof tempChain>>['chain'], to: string, amount: bigint) =>
  chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(to, amount),
  });

describe('genesis state', () => {
  it('starts at block 0 with the dev account funded and active', async () => {
    const { chain } = await tempChain();
    expect(chain.blockCount()).toBe(1);
    expect(chain.walletInfo(devWallet.address)).toEqual({
      account: 0,
      updated_active: 0,
      updated_passive: 0,
      n_operation: 0,
      balance: DEV_START.toString(),
      wallet: devWallet.address,
      volume_lock: '0',
      volume_timelock: '0',
      state: 'normal wallet',
      n_operation_pending: 0,
    });
    expect(chain.walletInfo(alice.address)).toMatchObject({
      account: -1,
      balance: '0',
      state: 'unknown wallet',
    });
    const info = await chain.blockInfo(0);
    expect(info).toMatchObject({
      block: 0,
      operations: 0,
      nopsp: '0',
      trx_fee: '0',
      hmr: devWallet.address,
      payload: '0x',
    });
    expect(info.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(info.one_hash).toBe(`0x${'0'.repeat(64)}`);
  });
});

describe('block production', () => {
  it('moves coins, pays fees to the producer and indexes operations', async () => {
    const { chain } = await tempChain();
    const seen: number[] = [];
    const told: unknown[][] = [];
    chain.onBlock((b, _origin, operations) => {
      seen.push(b.block);
      told.push(operations());
    });
    const payload = Uint8Array.of(0xca, 0xfe);
    const pending = await chain.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: transferTo(alice.address, 3n * COIN, payload),
    });
    expect(pending).toMatchObject({
      block: 0,
      maturation: null,
      optype: 2,
      subtype: 0,
      nopsp: 1,
      niopsp: 0,
      oprice: ACT.toString(),
      ioprice: ACT.toString(),
      signer_account: devWallet.address,
      n_operation: 1,
      amount: (3n * COIN).toString(),
      senders: [{ account: devWallet.address, payload: 'cafe', payload_type: 0 }],
      receivers: [{ account: alice.address }],
      optxt: `Transfer 3 from ${devWallet.address} to ${alice.address}`,
    });
    expect(pending.ophash.startsWith('00000000')).toBe(true);
    expect(chain.pendingCount()).toBe(1);
    expect(chain.pendingOperations()).toEqual([pending]);
    // A pending operation is found by its ophash, and only when each of its parts matches.
    expect(await chain.findOperation(pending.ophash)).toEqual([pending]);
    const parts = decodeOpHash(pending.ophash);
    for (const other of [{ nOperation: 2 }, { account: parts.account + 1 }]) {
      expect(await chain.findOperation(buildOpHash({ ...parts, ...other }))).toEqual([]);
    }

    const block = await chain.produceBlock(devWallet.privateKey);
    expect(block).toMatchObject({
      block: 1,
      operations: 1,
      nopsp: '1',
      niopsp: '0',
      trx_fee: ACT.toString(),
    });
    expect(seen).toEqual([1]);
    expect(chain.blockCount()).toBe(2);
    expect(chain.pendingCount()).toBe(0);
    // The producer (the dev account) paid the fee and got it back.
    expect(chain.walletInfo(devWallet.address)).toMatchObject({
      balance: (DEV_START - 3n * COIN).toString(),
      n_operation: 1,
      updated_active: 1,
    });
    expect(chain.walletInfo(alice.address)).toMatchObject({
      account: 1,
      balance: (3n * COIN).toString(),
      state: 'inactive wallet',
      updated_passive: 1,
      n_operation: 0,
    });

    const mined = await chain.blockOperations(1);
    expect(mined).toHaveLength(1);
    // Block listeners are given the same operation objects as getBlockOperations (push, issue 16).
    expect(told).toEqual([mined]);
    expect(mined[0]).toMatchObject({
      block: 1,
      opblock: 0,
      maturation: 0,
      time: Number(block!.timestamp),
    });
    expect(mined[0]!.ophash.slice(0, 8)).toBe('01000000');
    expect(opHashIdentity(mined[0]!.ophash)).toBe(opHashIdentity(pending.ophash));
    // Either form of the ophash finds it.
    expect(await chain.findOperation(pending.ophash)).toEqual(mined);
    expect(await chain.findOperation(mined[0]!.ophash.toUpperCase())).toEqual(mined);
    expect(await chain.findOperation('00'.repeat(32))).toEqual([]);

    await chain.produceBlock(devWallet.privateKey).then((b) => expect(b).toBeUndefined());
    await fundAndActivate(chain, bob, COIN);
    expect((await chain.blockOperations(1))[0]!.maturation).toBe(1);
    expect(await chain.getBlockBytes(2)).toBeInstanceOf(Uint8Array);
    expect(await chain.getBlockBytes(3)).toBeUndefined();
  });

  it('respects maxOperations and leaves the rest pending, in order', async () => {
    const { chain } = await tempChain();
    for (let i = 1; i <= 5; i++) await send(chain, alice.address, BigInt(i));
    const first = await chain.produceBlock(devWallet.privateKey, { maxOperations: 2 });
    expect(first!.operations).toBe(2);
    expect(chain.pendingOperations().map((o) => o.n_operation)).toEqual([3, 4, 5]);
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.walletInfo(alice.address).balance).toBe('15');
  });

  it("presents a range of a block's operations as the whole block presents them", async () => {
    const { chain } = await tempChain();
    for (let i = 1; i <= 5; i++) await send(chain, alice.address, BigInt(i));
    await chain.produceBlock(devWallet.privateKey);
    const all = await chain.blockOperations(1);
    expect(all).toHaveLength(5);
    expect(await chain.blockOperations(1, { from: 1, to: 3 })).toEqual(all.slice(1, 3));
    expect(await chain.blockOperations(1, { from: 4, to: 100 })).toEqual(all.slice(4));
    expect(await chain.blockOperations(1, { from: 5, to: 6 })).toEqual([]);
  });

  it('refuses a producer key outside the producer set', async () => {
    const { chain } = await tempChain();
    await send(chain, alice.address, 1n);
    await expect(chain.produceBlock(alice.privateKey)).rejects.toThrow(
      expect.objectContaining({ code: 1021, reason: 'NOT_A_PRODUCER' }),
    );
  });
});

describe('mempool', () => {
  it('gives 100 concurrent signAndSubmit calls of one account consecutive n_operations', async () => {
    const { chain } = await tempChain();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => send(chain, alice.address, BigInt(i + 1))),
    );
    expect(results.map((r) => r.n_operation)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(chain.pendingOperations().map((o) => o.n_operation)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.walletInfo(alice.address).balance).toBe(String((100 * 101) / 2));
    expect(chain.walletInfo(devWallet.address).n_operation).toBe(100);
  });

  it('keeps arrival order across accounts and drops what a block made invalid', async () => {
    const { chain } = await tempChain();
    await fundAndActivate(chain, alice, 2n * COIN);
    await fundAndActivate(chain, bob, 2n * COIN);
    const a1 = await chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, COIN),
    });
    const b1 = await chain.signAndSubmit({
      optype: 2,
      signer: bob.address,
      privateKey: bob.privateKey,
      body: transferTo(alice.address, COIN),
    });
    const a2 = await chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, COIN / 2n),
    });
    expect(chain.pendingOperations().map((o) => o.ophash)).toEqual([
      a1.ophash,
      b1.ophash,
      a2.ophash,
    ]);
    // A competing operation (same signer and n_operation, other content) mined elsewhere...
    const rival = chain.buildSignedOperation({
      optype: 2,
      signerAccount: chain.accountByAddress(alice.address)!.number,
      nOperation: 2,
      privateKey: alice.privateKey,
      body: transferTo(devWallet.address, COIN),
    });
    const other = await openTempChain();
    cleanups.push(other.cleanup);
    for (let h = 1; h < chain.blockCount(); h++)
      await other.chain.importBlock((await chain.getBlockBytes(h))!);
    await other.chain.submitOperation(rival);
    await other.chain.produceBlock(devWallet.privateKey);
    // ...and imported here invalidates a1 (n_operation 2 taken); a2 (n_operation 3) is now next.
    await chain.importBlock((await other.chain.getBlockBytes(other.chain.blockCount() - 1))!);
    expect(chain.pendingOperations().map((o) => o.ophash)).toEqual([b1.ophash, a2.ophash]);
    expect(await chain.findOperation(a1.ophash)).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps blocks, state and indexes across a restart', async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    const genesis = createDevGenesis();
    const a = createChain({ dataDir: dir, genesis });
    await a.open();
    await fundAndActivate(a, alice, 5n * COIN);
    const sent = await a.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, COIN),
    });
    await a.produceBlock(devWallet.privateKey);
    const before = {
      count: a.blockCount(),
      head: a.head(),
      root: a.stateRoot(),
      wallets: [devWallet, alice, bob].map((w) => a.walletInfo(w.address)),
      info: await a.blockInfo(2),
      ops: await a.blockOperations(2),
    };
    await a.close();
    await a.close(); // idempotent

    const b = createChain({ dataDir: dir, genesis });
    await b.open();
    expect(b.blockCount()).toBe(before.count);
    expect(b.head()).toEqual(before.head);
    expect(b.stateRoot()).toEqual(before.root);
    expect([devWallet, alice, bob].map((w) => b.walletInfo(w.address))).toEqual(before.wallets);
    expect(await b.blockInfo(2)).toEqual(before.info);
    expect(await b.blockOperations(2)).toEqual(before.ops);
    expect((await b.findOperation(sent.ophash))[0]).toMatchObject({ block: 2, n_operation: 2 });
    expect(await b.heightOfHash(b.head().hash)).toBe(2);
    // And it keeps going from there.
    await b.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, 1n),
    });
    expect((await b.produceBlock(devWallet.privateKey))!.block).toBe(3);
    await b.close();
  });

  it('journals local submissions: pending again after a restart without a block', async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    const genesis = createDevGenesis();
    const a = createChain({ dataDir: dir, genesis });
    await a.open();
    const submitted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(a, alice.address, BigInt(i + 1))),
    );
    await a.close();

    const b = createChain({ dataDir: dir, genesis });
    await b.open();
    expect(b.pendingOperations().map((o) => o.ophash)).toEqual(submitted.map((o) => o.ophash));
    await b.produceBlock(devWallet.privateKey);
    await b.close();

    // Included operations left the journal in the block's batch.
    const c = createChain({ dataDir: dir, genesis });
    await c.open();
    expect(c.pendingCount()).toBe(0);
    expect(c.walletInfo(alice.address).balance).toBe(String((20 * 21) / 2));
    await c.close();
  });

  it('does not journal operations submitted as not local', async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    const genesis = createDevGenesis();
    const a = createChain({ dataDir: dir, genesis });
    await a.open();
    const op = a.buildSignedOperation({
      optype: 2,
      signerAccount: 0,
      nOperation: 1,
      privateKey: devWallet.privateKey,
      body: transferTo(alice.address, 1n),
    });
    await a.submitOperation(op, { local: false });
    expect(a.pendingCount()).toBe(1);
    await a.close();
    const b = createChain({ dataDir: dir, genesis });
    await b.open();
    expect(b.pendingCount()).toBe(0);
    await b.close();
  });

  it('refuses a second open of the same data directory', async () => {
    const { chain, dir } = await tempChain();
    const second = createChain({ dataDir: dir, genesis: createDevGenesis() });
    await expect(second.open()).rejects.toThrow(
      expect.objectContaining({
        code: 1021,
        reason: 'DATADIR_IN_USE',
        message: `data directory ${dir} is in use by another chain-node process`,
      }),
    );
    expect(chain.blockCount()).toBe(1);
  });

  it('refuses a data directory of another genesis', async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    const a = createChain({ dataDir: dir, genesis: createDevGenesis() });
    await a.open();
    await a.close();
    const b = createChain({ dataDir: dir, genesis: createDevGenesis({ network: 'other' }) });
    await expect(b.open()).rejects.toThrow(expect.objectContaining({ reason: 'GENESIS_MISMATCH' }));
    // The failed open released the directory.
    const c = createChain({ dataDir: dir, genesis: createDevGenesis() });
    await c.open();
    await c.close();
  });

  it('refuses calls after close', async () => {
    const { chain } = await tempChain();
    await chain.close();
    await expect(send(chain, alice.address, 1n)).rejects.toThrow(
      expect.objectContaining({ reason: 'CHAIN_CLOSED' }),
    );
  });
});
