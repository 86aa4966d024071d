import { encodePrivateKey } from '@chain/crypto';
import type { KeyStore } from '@chain/keystore';
import { devWallet, namespacedWallet, openTempChain, type TempChain } from '@chain/ledger/testing';
import type { P2PNode } from '@chain/p2p-libp2p';
import type { CallContext } from '@chain/rpc-jayson';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger';
import { createProducerKeys } from '../producer-keys';
import type { PushHub } from '../push/push-hub';
import type { WithdrawalReferences } from '../references/withdrawal-references';
import { createNodeRegistry } from '../registry';
import type { NodeContext } from './context';
import { operationsHandlers } from './operations';
import { tokenHandlers } from './token';
import { walletHandlers } from './wallet';

/** Every key decoded from a request param (privSendTo's `priv`, activeWallet's `private`). */
const decoded = vi.hoisted(() => [] as Uint8Array[]);
vi.mock('@chain/crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@chain/crypto')>();
  return {
    ...actual,
    decodePrivateKey(...args: Parameters<typeof actual.decodePrivateKey>) {
      const key = actual.decodePrivateKey(...args);
      decoded.push(key);
      return key;
    },
  };
});

const caller: CallContext = { remoteAddress: '127.0.0.1', loopback: true } as CallContext;

/**
 * A key store that holds the dev wallet's key and hands out a fresh copy per call, as the real one
 * does, keeping every copy it handed out so the test can look at it after the call.
 */
function spyKeyStore() {
  const handedOut: Uint8Array[] = [];
  const keystore: Pick<KeyStore, 'getPrivateKey'> = {
    async getPrivateKey() {
      const copy = Uint8Array.from(devWallet.privateKey);
      handedOut.push(copy);
      return copy;
    },
  };
  return { keystore: keystore as KeyStore, handedOut };
}

function wiped(key: Uint8Array): boolean {
  return key.length === 32 && key.every((byte) => byte === 0);
}

describe('RPC handlers wipe the private keys they use', () => {
  let temp: TempChain;
  let node: NodeContext;
  let handedOut: Uint8Array[];
  let other: string;

  beforeEach(async () => {
    temp = await openTempChain({ dirPrefix: 'node-key-wiping-', registry: createNodeRegistry() });
    const spy = spyKeyStore();
    handedOut = spy.handedOut;
    node = {
      chain: temp.chain,
      keystore: spy.keystore,
      log: createLogger('silent'),
      producerKeys: createProducerKeys(),
      datadir: temp.dir,
      network: {} as P2PNode,
      push: {} as PushHub,
      references: {} as WithdrawalReferences,
    };
    other = namespacedWallet('node', 'receiver').address;
    decoded.length = 0;
  });

  afterEach(async () => {
    await temp.cleanup();
  });

  it('sendTo: the key-store key is all zeros after the operation is submitted', async () => {
    const op = await operationsHandlers(node).sendTo(
      { sender: devWallet.address, receiver: other, amount: '1.5', passphrase: 'x' },
      caller,
    );
    expect(op.ophash).toMatch(/^[0-9A-F]+$/i);
    expect(temp.chain.pendingCount()).toBe(1);
    expect(handedOut).toHaveLength(1);
    expect(wiped(handedOut[0]!)).toBe(true);
  });

  it('sendTo: the key is wiped when the chain refuses the operation too', async () => {
    const tooMuch = (10n ** 30n).toString();
    await expect(
      operationsHandlers(node).sendTo(
        { sender: devWallet.address, receiver: other, amount: tooMuch, passphrase: 'x' },
        caller,
      ),
    ).rejects.toThrow();
    expect(handedOut).toHaveLength(1);
    expect(wiped(handedOut[0]!)).toBe(true);
  });

  it('rawSendTo: the key is wiped after the operation is signed', async () => {
    const devAccount = temp.chain.accountByAddress(devWallet.address)!;
    const result = await operationsHandlers(node).rawSendTo(
      {
        senderWallet: devWallet.address,
        senderAccount: devAccount.number,
        senderNOperation: 0,
        receiverAccount: devAccount.number,
        amount: '1',
        passphrase: 'x',
      },
      caller,
    );
    expect(result.rawoperation.length).toBeGreaterThan(0);
    expect(wiped(handedOut[0]!)).toBe(true);
  });

  it('signMessage and dumpPrivateKey: the key is wiped after the answer is made', async () => {
    const handlers = walletHandlers(node);
    const signed = await handlers.signMessage(
      { wallet: devWallet.address, passphrase: 'x', message: 'hello' },
      caller,
    );
    expect(signed).toBeTruthy();
    const dumped = await handlers.dumpPrivateKey(
      { wallet: devWallet.address, passphrase: 'x' },
      caller,
    );
    expect(dumped.priv).toBe(encodePrivateKey(devWallet.privateKey));
    expect(handedOut).toHaveLength(2);
    expect(handedOut.every(wiped)).toBe(true);
  });

  it('createToken: the key is wiped after the token operation is submitted', async () => {
    await tokenHandlers(node).createToken(
      {
        wallet: devWallet.address,
        passphrase: 'x',
        function: false,
        decimal: 2,
        totalAmount: '1000',
        name: 'Wiped',
        symbol: 'WIP',
        summary: 'a token of the key-wiping test',
      },
      caller,
    );
    expect(temp.chain.pendingCount()).toBe(1);
    expect(wiped(handedOut[0]!)).toBe(true);
  });

  it('privSendTo: the key decoded from `priv` is wiped after the operation is submitted', async () => {
    await operationsHandlers(node).privSendTo(
      {
        sender: devWallet.address,
        receiver: other,
        amount: '1',
        priv: encodePrivateKey(devWallet.privateKey),
      },
      caller,
    );
    expect(temp.chain.pendingCount()).toBe(1);
    expect(decoded).toHaveLength(1);
    expect(wiped(decoded[0]!)).toBe(true);
  });

  it("activeWallet: a key that is not the wallet's is wiped before the refusal", async () => {
    await expect(
      walletHandlers(node).activeWallet(
        {
          wallet: other,
          private: encodePrivateKey(devWallet.privateKey),
        },
        caller,
      ),
    ).rejects.toMatchObject({ reason: 'KEY_WALLET_MISMATCH', param: 'private' });
    expect(decoded).toHaveLength(1);
    expect(wiped(decoded[0]!)).toBe(true);
  });

  it('activeWallet with a passphrase: the key-store key is all zeros after the refusal', async () => {
    // The dev wallet is active already: the activation is refused after the key was used.
    await expect(
      walletHandlers(node).activeWallet({ wallet: devWallet.address, passphrase: 'dev' }, caller),
    ).rejects.toMatchObject({ reason: 'ALREADY_ACTIVE' });
    expect(handedOut).toHaveLength(1);
    expect(wiped(handedOut[0]!)).toBe(true);
    expect(decoded).toHaveLength(0);
  });
});
