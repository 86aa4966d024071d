import { join } from 'node:path';
import { bytesToHex } from '@chain/crypto';
import type { KeyStore } from '@chain/keystore';
import { transferRequest } from '@chain/ledger';
import {
  devWallet,
  mine,
  namespacedWallet,
  openTempChain,
  type TempChain,
} from '@chain/ledger/testing';
import { decodeOpHash } from '@chain/ophash';
import type { P2PNode } from '@chain/p2p-libp2p';
import type { CallContext } from '@chain/rpc-jayson';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createProducerKeys } from '../producer-keys';
import type { PushHub } from '../push/push-hub';
import {
  openWithdrawalReferences,
  type WithdrawalReferences,
} from '../references/withdrawal-references';
import { createNodeRegistry } from '../registry';
import type { NodeContext } from './context';
import { operationsHandlers } from './operations';

const caller: CallContext = { remoteAddress: '127.0.0.1', loopback: true } as CallContext;

/** The dev wallet's key, a fresh copy per call, as the real key store hands it out. */
const keystore = {
  async getPrivateKey() {
    return Uint8Array.from(devWallet.privateKey);
  },
} as Pick<KeyStore, 'getPrivateKey'> as KeyStore;

function digest(ophash: string): string {
  return bytesToHex(decodeOpHash(ophash).digest);
}

describe('sendTo with a reference', () => {
  let temp: TempChain;
  let references: WithdrawalReferences;
  let node: NodeContext;
  const receiver = namespacedWallet('references', 'receiver').address;
  const send = (amount: string, reference: string) =>
    operationsHandlers(node).sendTo(
      { sender: devWallet.address, receiver, amount, passphrase: 'x', reference },
      caller,
    );

  async function reopenReferences() {
    await references.close();
    references = await openWithdrawalReferences(join(temp.dir, 'references'), 100);
    node = { ...node, references };
  }

  beforeEach(async () => {
    temp = await openTempChain({ dirPrefix: 'node-references-', registry: createNodeRegistry() });
    references = await openWithdrawalReferences(join(temp.dir, 'references'), 100);
    node = {
      chain: temp.chain,
      keystore,
      log: createLogger('silent'),
      producerKeys: createProducerKeys(),
      datadir: temp.dir,
      network: {} as P2PNode,
      push: {} as PushHub,
      references,
    };
  });

  afterEach(async () => {
    await references.close();
    await temp.cleanup();
  });

  it('pays once: a repeat returns the pending operation, then the mined one', async () => {
    const first = await send('5', 'withdrawal-1');
    const again = await send('5', 'withdrawal-1');
    expect(again.ophash).toBe(first.ophash);
    expect(temp.chain.pendingCount()).toBe(1);
    await mine(temp.chain);
    await reopenReferences();
    const mined = await send('5', 'withdrawal-1');
    expect(mined.block).toBe(1);
    expect(digest(mined.ophash)).toBe(digest(first.ophash));
    expect(temp.chain.pendingCount()).toBe(0);
    expect(temp.chain.walletInfo(receiver).balance).toBe('5000000000000000000');
  });

  it('keeps references apart: two references are two payments', async () => {
    const a = await send('1', 'a');
    const b = await send('1', 'b');
    expect(b.n_operation).toBe(a.n_operation + 1);
    expect(temp.chain.pendingCount()).toBe(2);
  });

  it('refuses a repeat that asks for another amount, naming the reference', async () => {
    await send('5', 'withdrawal-2');
    await expect(send('6', 'withdrawal-2')).rejects.toMatchObject({
      reason: 'REFERENCE_REUSED',
      param: 'reference',
    });
    expect(temp.chain.pendingCount()).toBe(1);
  });

  it('submits the stored bytes again when the chain never got them (a kill before the journal)', async () => {
    // What a kill between the reference's write and the operation's journal write leaves behind.
    const account = temp.chain.accountByAddress(devWallet.address)!;
    const bytes = temp.chain.buildSignedOperation({
      ...transferRequest(
        { signer: devWallet.address, privateKey: Uint8Array.from(devWallet.privateKey) },
        {
          receiver: { hash160: namespacedWallet('references', 'receiver').hash160 },
          amount: 5n * 10n ** 18n,
          payloadType: 0,
          payload: new Uint8Array(0),
        },
      ),
      signerAccount: account.number,
      nOperation: 1,
      fee: temp.chain.actPrice,
    });
    const ophash = temp.chain.describeOperation(bytes).ophash;
    await references.put(devWallet.address, 'lost', {
      intent: `sendTo|${receiver}|${5n * 10n ** 18n}||`,
      raw: bytesToHex(bytes),
      nOperation: 1,
      ophash,
      height: 0,
    });
    expect(temp.chain.pendingCount()).toBe(0);
    const op = await send('5', 'lost');
    expect(digest(op.ophash)).toBe(digest(ophash));
    expect(temp.chain.pendingCount()).toBe(1);
    expect((await send('5', 'lost')).ophash).toBe(op.ophash);
    expect(temp.chain.pendingCount()).toBe(1);
  });

  it('frees a reference whose operation the chain refused, so a corrected call can use it', async () => {
    await expect(send((10n ** 30n).toString(), 'too-much')).rejects.toMatchObject({
      reason: 'INSUFFICIENT_FUNDS',
    });
    expect(await references.get(devWallet.address, 'too-much')).toBeUndefined();
    const op = await send('1', 'too-much');
    expect(op.n_operation).toBe(1);
  });

  it('refuses a reference with a space, naming it', async () => {
    await expect(send('1', 'with space')).rejects.toMatchObject({ param: 'reference' });
    expect(temp.chain.pendingCount()).toBe(0);
  });

  it('forgets a reference retentionBlocks after its first use', async () => {
    await send('1', 'old');
    expect(await references.prune(100)).toBe(0);
    expect(await references.prune(101)).toBe(1);
    expect(await references.get(devWallet.address, 'old')).toBeUndefined();
  });
});
