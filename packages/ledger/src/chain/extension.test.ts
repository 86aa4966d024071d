import { ChainError, ErrorCode } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import type { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { LedgerError } from '../errors';
import { createDevGenesis } from '../genesis';
import { createRegistry } from '../operation/ledger-registry';
import { decodeOperation } from '../operation/operation';
import type { OperationRegistry, OperationType, StateSpace } from '../operation/registry';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  testWallet,
  transferTo,
} from '../testing/temp-chain';
import { type Chain, createChain } from './chain';

/** A stand-in for the token and participation packages: a state space, a type, a block hook. */
interface Note {
  text: string;
  author: number;
}
interface NoteBody {
  key: string;
  text: string;
  remove: boolean;
  lockAmount: bigint;
  lockBlocks: number;
  becomeProducer: boolean;
}

const notes: StateSpace<Note> = {
  name: 'notes',
  encode: (v) => new ByteWriter().string16(v.text).u32(v.author).finish(),
  decode(bytes) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = view.getUint16(0, true);
    return {
      text: new TextDecoder().decode(bytes.subarray(2, 2 + length)),
      author: view.getUint32(2 + length, true),
    };
  },
  clone: (v) => ({ ...v }),
};

const noteType: OperationType<NoteBody> = {
  optype: 200,
  subtype: 0,
  name: 'note',
  encodeBody: (b) =>
    new ByteWriter()
      .string16(b.key)
      .string16(b.text)
      .u8(b.remove ? 1 : 0)
      .amount(b.lockAmount)
      .u32(b.lockBlocks)
      .u8(b.becomeProducer ? 1 : 0)
      .finish(),
  decodeBody: (r: ByteReader) => ({
    key: r.string16(),
    text: r.string16(),
    remove: r.u8() === 1,
    lockAmount: r.amount(),
    lockBlocks: r.u32(),
    becomeProducer: r.u8() === 1,
  }),
  apply(ctx, op) {
    const { key, text, remove, lockAmount, lockBlocks, becomeProducer } = op.body;
    const existing = ctx.get(notes, key);
    if (existing !== undefined && existing.author !== ctx.signer) {
      throw new LedgerError(ErrorCode.NOT_ALLOWED, 'NOT_YOUR_NOTE', `note ${key} is not yours`);
    }
    if (remove) ctx.delete(notes, key);
    else ctx.put(notes, key, { text, author: ctx.signer });
    if (lockAmount > 0n) {
      const account = ctx.editAccount(ctx.signer);
      if (ctx.spendable(account) < lockAmount) {
        throw new LedgerError(ErrorCode.INSUFFICIENT_FUNDS, 'INSUFFICIENT_FUNDS', 'cannot lock');
      }
      account.timelocks.push({ amount: lockAmount, untilBlock: ctx.height + lockBlocks });
    }
    if (becomeProducer) ctx.setProducer(ctx.signer, true);
  },
  present: (op, ctx) => ({
    amount: 0n,
    senders: [{ account: ctx.signerAddress, payload: '', payload_type: 0 }],
    receivers: [],
    optxt: `Note ${op.body.key}`,
    extra: { note: op.body.key, stored: ctx.get(notes, op.body.key)?.text ?? null },
    omit: ['subtype'],
  }),
};

const SUBSIDY = 1000n;

function extendedRegistry(): OperationRegistry {
  const registry = createRegistry();
  registry.registerSpace(notes);
  registry.register(noteType);
  registry.registerBlockHook({
    afterOperations(ctx, block) {
      ctx.credit(block.producer, block.fees + SUBSIDY);
    },
  });
  return registry;
}

const alice = testWallet('alice');
const bob = testWallet('bob');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function extendedChain() {
  const t = await openTempChain({ registry: extendedRegistry() });
  cleanups.push(t.cleanup);
  return t;
}

function note(
  chain: Chain,
  wallet: { address: string; privateKey: Uint8Array },
  body: Partial<NoteBody>,
) {
  return chain.signAndSubmit({
    optype: 200,
    signer: wallet.address,
    privateKey: wallet.privateKey,
    body: {
      key: 'k',
      text: '',
      remove: false,
      lockAmount: 0n,
      lockBlocks: 0,
      becomeProducer: false,
      ...body,
    },
  });
}

describe('registry', () => {
  it('refuses a duplicate optype and registration after the chain opened', async () => {
    const registry = extendedRegistry();
    expect(() => registry.register(noteType)).toThrow(
      expect.objectContaining({ reason: 'DUPLICATE_OPTYPE' }),
    );
    expect(() => registry.registerSpace(notes)).toThrow(
      expect.objectContaining({ reason: 'DUPLICATE_SPACE' }),
    );
    const t = await openTempChain({ registry });
    cleanups.push(t.cleanup);
    expect(() => registry.register({ ...noteType, optype: 201 })).toThrow(
      expect.objectContaining({ reason: 'REGISTRY_SEALED' }),
    );
  });

  it('turns anything a body decoder throws into a ChainError', () => {
    const registry = createRegistry();
    registry.register({
      ...noteType,
      optype: 300,
      decodeBody: () => {
        throw new RangeError('boom');
      },
    });
    const bytes = Uint8Array.from([44, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, ...new Array(64).fill(0)]);
    expect(() => decodeOperation(bytes, registry, nativeHashes)).toThrow(ChainError);
    expect(() => decodeOperation(bytes, registry, nativeHashes)).toThrow(
      expect.objectContaining({ reason: 'BAD_BODY' }),
    );
  });
});

describe('state spaces, block hooks and the producer set', () => {
  it('stores space entries, presents extra fields, persists and restores on rollback', async () => {
    const { chain, dir } = await extendedChain();
    const pending = await note(chain, devWallet, { key: 'greeting', text: 'hello' });
    expect(pending).toMatchObject({
      optype: 200,
      optxt: 'Note greeting',
      note: 'greeting',
      stored: null,
    });
    expect('subtype' in pending).toBe(false);
    await chain.produceBlock(devWallet.privateKey);
    expect((await chain.blockOperations(1))[0]).toMatchObject({
      note: 'greeting',
      stored: 'hello',
    });
    const atOne = chain.stateRoot();

    await fundAndActivate(chain, alice, COIN);
    await expect(note(chain, alice, { key: 'greeting', text: 'mine' })).rejects.toThrow(
      expect.objectContaining({ reason: 'NOT_YOUR_NOTE' }),
    );
    await note(chain, devWallet, { key: 'greeting', remove: true });
    await note(chain, devWallet, { key: 'other', text: 'x' });
    await chain.produceBlock(devWallet.privateKey);
    expect((await chain.blockOperations(3))[0]).toMatchObject({ stored: null });

    await chain.rollback(1);
    expect(chain.stateRoot()).toEqual(atOne);
    await chain.close();
    const reopened = createChain({
      dataDir: dir,
      genesis: createDevGenesis(),
      registry: extendedRegistry(),
    });
    await reopened.open();
    try {
      expect((await reopened.blockOperations(1))[0]).toMatchObject({ stored: 'hello' });
      expect(reopened.stateRoot()).toEqual(atOne);
      // The returned operations re-validate: the delete is pending again.
      expect(reopened.pendingOperations().map((o) => o.optxt)).toContain('Note other');
    } finally {
      await reopened.close();
    }
  });

  it('refuses to open a data directory whose state spaces are not registered', async () => {
    const { chain, dir } = await extendedChain();
    await note(chain, devWallet, { key: 'a', text: 'b' });
    await chain.produceBlock(devWallet.privateKey);
    await chain.close();
    const plain = createChain({ dataDir: dir, genesis: createDevGenesis() });
    await expect(plain.open()).rejects.toThrow(
      expect.objectContaining({ reason: 'CORRUPT_DATADIR' }),
    );
  });

  it('runs the block hook instead of the default reward', async () => {
    const { chain } = await extendedChain();
    await chain.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: transferTo(bob.address, COIN),
    });
    await chain.produceBlock(devWallet.privateKey);
    // The producer paid the fee, got it back plus the subsidy.
    expect(chain.walletInfo(devWallet.address).balance).toBe(String(10n ** 27n - COIN + SUBSIDY));
  });

  it('applies timelocks to spendable funds until they mature', async () => {
    const { chain } = await extendedChain();
    await fundAndActivate(chain, alice, 3n * COIN);
    await note(chain, alice, { key: 'lock', text: '', lockAmount: 2n * COIN, lockBlocks: 2 });
    await chain.produceBlock(devWallet.privateKey); // block 2: locked until block 4
    const fee = 10n ** 14n;
    expect(chain.walletInfo(alice.address)).toMatchObject({
      balance: String(3n * COIN - fee),
      volume_timelock: String(2n * COIN),
    });
    expect(chain.accountByAddress(alice.address)!.spendable).toBe(COIN - fee);
    await expect(
      chain.signAndSubmit({
        optype: 2,
        signer: alice.address,
        privateKey: alice.privateKey,
        body: transferTo(bob.address, 2n * COIN),
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 1031 }));
    await note(chain, devWallet, { key: 'tick' });
    await chain.produceBlock(devWallet.privateKey); // block 3
    // In block 4 the lock has matured: the transfer is valid again.
    await chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, 2n * COIN),
    });
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.walletInfo(alice.address).volume_timelock).toBe('0');
    expect(chain.accountByAddress(alice.address)!.timelocks).toEqual([]);
  });

  it('lets an apply context change the producer set; blocks import the same elsewhere', async () => {
    const { chain } = await extendedChain();
    await fundAndActivate(chain, alice, COIN);
    expect(chain.producers()).toEqual([0]);
    await note(chain, alice, { key: 'p', becomeProducer: true });
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.producers()).toEqual([0, 1]);
    await note(chain, devWallet, { key: 'q' });
    const byAlice = await chain.produceBlock(alice.privateKey);
    expect(byAlice).toMatchObject({ hmr: alice.address });

    const other = await extendedChain();
    for (let h = 1; h < chain.blockCount(); h++)
      await other.chain.importBlock((await chain.getBlockBytes(h))!);
    expect(other.chain.stateRoot()).toEqual(chain.stateRoot());
    expect(other.chain.producers()).toEqual([0, 1]);
    await other.chain.rollback(1);
    expect(other.chain.producers()).toEqual([0]);
  });
});
