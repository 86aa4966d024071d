import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  getPublicKey,
  hexToBytes,
  randomPrivateKey,
} from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  COIN,
  devWallet,
  mined,
  newFundedWallet,
  type WalletInfo,
  waitFor,
} from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

// The Wallet group through the real binary.
let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '100'], keepDatadir: true });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

const WALLET_INFO_FIELDS = [
  'account',
  'updated_active',
  'updated_passive',
  'n_operation',
  'balance',
  'wallet',
  'volume_lock',
  'volume_timelock',
  'state',
];

function withSpecFields(info: WalletInfo) {
  return Object.fromEntries(WALLET_INFO_FIELDS.map((key) => [key, info[key as keyof WalletInfo]]));
}

describe('newWallet, getKeyStoreCount, getKeyStoreInfo', () => {
  it('creates a key-store wallet and counts it', async () => {
    const before = await call<number>(node.url, 'getKeyStoreCount');
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    expect(wallet).toMatch(/^CH[0-9a-f]{46}$/);
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(before + 1);
    const all = await call<WalletInfo[]>(node.url, 'getKeyStoreInfo', {});
    expect(all.map((w) => w.wallet)).toContain(wallet);
    expect(await call<WalletInfo[]>(node.url, 'getKeyStoreInfo', { max: 1 })).toHaveLength(1);
    expect(await call<WalletInfo[]>(node.url, 'getKeyStoreInfo', { max: '1' })).toHaveLength(1);
  });

  it('refuses a newWallet without a passphrase', async () => {
    expect((await rpc(node.url, 'newWallet', {})).error).toMatchObject({
      code: -32602,
      data: { param: 'passphrase' },
    });
  });
});

describe('getWalletInfo', () => {
  it('reads the prefunded dev wallet with exactly the spec fields', async () => {
    const info = await call<WalletInfo & { key_state: string }>(node.url, 'getWalletInfo', {
      wallet: dev,
    });
    expect(withSpecFields(info)).toMatchObject({
      account: 0,
      wallet: dev,
      state: 'normal wallet',
      volume_lock: '0',
      volume_timelock: '0',
    });
    expect(BigInt(info.balance)).toBeGreaterThan(1000n * COIN);
    for (const key of ['account', 'updated_active', 'updated_passive', 'n_operation']) {
      expect(Number.isInteger(info[key as keyof WalletInfo]), key).toBe(true);
    }
    expect(info.key_state).toBe('unlocked');
  });

  it('reads a wallet that is not on chain as unknown, account -1', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
    expect(withSpecFields(info)).toEqual({
      account: -1,
      updated_active: 0,
      updated_passive: 0,
      n_operation: 0,
      balance: '0',
      wallet,
      volume_lock: '0',
      volume_timelock: '0',
      state: 'unknown wallet',
    });
  });

  it('accepts an upper-case address and answers in canonical form', async () => {
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', {
      wallet: `CH${dev.slice(2).toUpperCase()}`,
    });
    expect(info.wallet).toBe(dev);
  });

  it('refuses a wallet with a bad checksum (1002, param wallet)', async () => {
    const last = dev.at(-1) === '0' ? '1' : '0';
    const reply = await rpc(node.url, 'getWalletInfo', { wallet: dev.slice(0, -1) + last });
    expect(reply.error).toMatchObject({
      code: 1002,
      data: { param: 'wallet', reason: 'BAD_ADDRESS_CHECKSUM' },
    });
  });

  it('refuses a wallet of another network (1002)', async () => {
    const reply = await rpc(node.url, 'getWalletInfo', { wallet: `XX${dev.slice(2)}` });
    expect(reply.error).toMatchObject({ code: 1002, data: { param: 'wallet' } });
  });

  it('refuses a malformed wallet (-32602)', async () => {
    expect((await rpc(node.url, 'getWalletInfo', { wallet: 'CH123' })).error).toMatchObject({
      code: -32602,
      data: { param: 'wallet' },
    });
  });
});

describe('getWalletInfo between changes (answered from a cache of the current state)', () => {
  it('is never stale: a new wallet, a lock, an unlock and a mined transfer show at once', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const info = () =>
      call<WalletInfo & { key_state: string }>(node.url, 'getWalletInfo', { wallet });
    expect(await info()).toMatchObject({ balance: '0', key_state: 'unlocked' });
    expect(await info()).toMatchObject({ balance: '0', key_state: 'unlocked' });
    await call(node.url, 'lockWallet', { wallet });
    expect((await info()).key_state).toBe('locked');
    await call(node.url, 'unlockWallet', { wallet, passphrase: 'pw' });
    expect((await info()).key_state).toBe('unlocked');
    const op = await call<{ ophash: string }>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: wallet,
      amount: '2',
    });
    await mined(node, op.ophash);
    // The block is committed: the very next read has it.
    expect((await info()).balance).toBe(String(2n * COIN));
  });
});

describe('activeWallet', () => {
  it('activates a funded wallet with its encoded key, recording an optype 5 operation', async () => {
    const wallet = await newFundedWallet(node, '10');
    expect((await call<WalletInfo>(node.url, 'getWalletInfo', { wallet })).state).toBe(
      'inactive wallet',
    );
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    expect(await call(node.url, 'activeWallet', { wallet, private: priv })).toEqual({ wallet });
    const info = await waitFor('activation', async () => {
      const current = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
      return current.state === 'normal wallet' ? current : undefined;
    });
    const ops = await call<Array<{ optype: number; signer_account: string; receivers: unknown[] }>>(
      node.url,
      'getBlockOperations',
      { block: info.updated_active },
    );
    const activation = ops.find((op) => op.optype === 5 && op.signer_account === wallet);
    expect(activation?.receivers).toEqual([]);
  });

  it('activates a wallet that was never on chain (no funds needed)', async () => {
    const key = randomPrivateKey();
    const wallet = addressFromPublicKey('CH', getPublicKey(key));
    await call(node.url, 'activeWallet', { wallet, private: `ca022000${bytesToHex(key)}` });
    const info = await waitFor('activation', async () => {
      const current = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
      return current.state === 'normal wallet' ? current : undefined;
    });
    expect(info.account).toBeGreaterThan(0);
  });

  it('refuses a key that is not the wallet’s (1005, param private)', async () => {
    const reply = await rpc(node.url, 'activeWallet', {
      wallet: dev,
      private: `ca022000${bytesToHex(randomPrivateKey())}`,
    });
    expect(reply.error).toMatchObject({ code: 1005, data: { param: 'private' } });
  });

  it('refuses a malformed key (1005 or -32602, param private)', async () => {
    const reply = await rpc(node.url, 'activeWallet', { wallet: dev, private: 'ca02200012' });
    expect(reply.error?.data?.param).toBe('private');
  });
});

describe('lockWallet and unlockWallet', () => {
  it('a locked wallet refuses every use of its key until unlocked, across a restart', async () => {
    const wallet = await newFundedWallet(node, '5');
    await activate(node, wallet);
    expect(await call(node.url, 'lockWallet', { wallet })).toBe(true);
    const send = { sender: wallet, passphrase: 'pw', receiver: dev, amount: '1' };
    expect((await rpc(node.url, 'sendTo', send)).error).toMatchObject({
      code: 1015,
      data: { param: 'sender' },
    });
    expect(
      (await rpc(node.url, 'dumpPrivateKey', { wallet, passphrase: 'pw' })).error,
    ).toMatchObject({ code: 1015 });
    expect(
      (await rpc(node.url, 'signMessage', { wallet, passphrase: 'pw', message: 'm' })).error,
    ).toMatchObject({ code: 1015 });

    // The lock survives a restart.
    await node.stop();
    node = await startNode({
      datadir: node.datadir,
      args: ['--block-time', '100'],
      keepDatadir: true,
    });
    expect(
      (await rpc(node.url, 'dumpPrivateKey', { wallet, passphrase: 'pw' })).error,
    ).toMatchObject({ code: 1015 });
    expect(
      (await call<{ key_state: string }>(node.url, 'getWalletInfo', { wallet })).key_state,
    ).toBe('locked');

    expect(
      (await rpc(node.url, 'unlockWallet', { wallet, passphrase: 'wrong' })).error,
    ).toMatchObject({
      code: 1030,
      data: { param: 'passphrase' },
    });
    expect(await call(node.url, 'unlockWallet', { wallet, passphrase: 'pw' })).toBe(true);
    expect((await rpc(node.url, 'sendTo', send)).result).toMatchObject({ optype: 2 });
  });

  it('lockWallet answers false for a wallet that is not in the key store', async () => {
    const key = randomPrivateKey();
    expect(
      await call(node.url, 'lockWallet', { wallet: addressFromPublicKey('CH', getPublicKey(key)) }),
    ).toBe(false);
  });

  it('unlockWallet of a wallet not in the key store is a clear error', async () => {
    const stranger = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
    expect(
      (await rpc(node.url, 'unlockWallet', { wallet: stranger, passphrase: 'x' })).error,
    ).toMatchObject({
      code: 1010,
      data: { param: 'wallet' },
    });
  });
});

describe('dumpPrivateKey and inputPrivateKey', () => {
  it('round-trips a key: dumped in encoded form, imported bare, same wallet', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const dumped = await call<{ status: boolean; priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    expect(dumped.status).toBe(true);
    expect(dumped.priv).toMatch(/^ca022000[0-9a-f]{64}$/);
    const scalar = dumped.priv.slice(8);
    expect(addressFromPublicKey('CH', getPublicKey(hexToBytes(scalar)))).toBe(wallet);

    const key = randomPrivateKey();
    const imported = await call<{ status: boolean; wallet: string }>(node.url, 'inputPrivateKey', {
      private: bytesToHex(key),
      passphrase: 'other',
    });
    expect(imported).toEqual({
      status: true,
      wallet: addressFromPublicKey('CH', getPublicKey(key)),
    });
    const again = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet: imported.wallet,
      passphrase: 'other',
    });
    expect(again.priv).toBe(`ca022000${bytesToHex(key)}`);
  });

  it('refuses a wrong passphrase (1030, param passphrase)', async () => {
    expect(
      (await rpc(node.url, 'dumpPrivateKey', { wallet: dev, passphrase: 'nope' })).error,
    ).toMatchObject({
      code: 1030,
      data: { param: 'passphrase' },
    });
  });

  it('refuses an invalid private key (param private)', async () => {
    const reply = await rpc(node.url, 'inputPrivateKey', {
      private: '00'.repeat(32),
      passphrase: 'x',
    });
    expect(reply.error).toMatchObject({ code: 1005, data: { param: 'private' } });
  });

  it('never echoes the passphrase in an error', async () => {
    const reply = await rpc(node.url, 'dumpPrivateKey', {
      wallet: dev,
      passphrase: 'SENTINEL-Pass-123',
    });
    expect(JSON.stringify(reply)).not.toContain('SENTINEL-Pass-123');
  });
});

describe('signMessage and verifyMessage', () => {
  it('signs with a key-store wallet; verifies true, and false when anything is changed', async () => {
    const signed = await call<{
      wallet: string;
      msg: string;
      enc: string;
      sig: string;
      version: unknown;
    }>(node.url, 'signMessage', { wallet: dev, passphrase: 'dev', message: 'hello chain' });
    expect(signed).toMatchObject({ wallet: dev, msg: 'hello chain' });
    expect(signed.enc).toMatch(/^ca022000[0-9a-f]{64}2000[0-9a-f]{64}$/);
    expect(signed.sig).toMatch(/^[0-9a-f]{130}$/);
    expect(await call(node.url, 'verifyMessage', { data: signed })).toBe(true);
    expect(await call(node.url, 'verifyMessage', { data: { ...signed, msg: 'hello chaim' } })).toBe(
      false,
    );
    const other = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    expect(
      await call(node.url, 'verifyMessage', { data: { ...signed, wallet: other.wallet } }),
    ).toBe(false);
    expect(await call(node.url, 'verifyMessage', { data: { ...signed, sig: 'zz' } })).toBe(false);
  });

  it('refuses data that is not an object (-32602, param data)', async () => {
    expect((await rpc(node.url, 'verifyMessage', { data: 'x' })).error).toMatchObject({
      code: -32602,
      data: { param: 'data' },
    });
  });
});

describe('walletRefresh', () => {
  it('picks up a key file copied into the keystore directory', async () => {
    const donor = await startNode();
    try {
      const { wallet } = await call<{ wallet: string }>(donor.url, 'newWallet', {
        passphrase: 'donor',
      });
      const dir = join(donor.datadir, 'keystore');
      const file = (await readdir(dir)).find((name) =>
        name.toLowerCase().includes(wallet.slice(2)),
      );
      expect(file).toBeDefined();
      const before = await call<number>(node.url, 'getKeyStoreCount');
      await copyFile(join(dir, file!), join(node.datadir, 'keystore', file!));
      expect(await call(node.url, 'walletRefresh')).toBe(true);
      expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(before + 1);
      const dumped = await call<{ status: boolean }>(node.url, 'dumpPrivateKey', {
        wallet,
        passphrase: 'donor',
      });
      expect(dumped.status).toBe(true);
    } finally {
      await donor.stop();
    }
  });
});
