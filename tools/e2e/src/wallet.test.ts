import { copyFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  getPublicKey,
  hexToBytes,
  randomPrivateKey,
} from '@chain/crypto';
import { decryptKeystoreJson, Wallet } from 'ethers';
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
import { makePbkdf2KeyFile } from './harness/key-file';
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

  it('refuses an empty passphrase for a new key (newWallet, inputPrivateKey): it would protect nothing', async () => {
    const before = await call<number>(node.url, 'getKeyStoreCount');
    for (const [method, params] of [
      ['newWallet', { passphrase: '' }],
      ['inputPrivateKey', { private: bytesToHex(randomPrivateKey()), passphrase: '' }],
    ] as const) {
      const reply = await rpc(node.url, method, params);
      expect(reply.error, method).toMatchObject({
        code: -32602,
        data: { reason: 'INVALID_PARAMS', param: 'passphrase' },
      });
      expect(reply.error?.message).toMatch(/must not be empty/);
    }
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(before);
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
    const activated = await call<{ wallet: string; ophash: string }>(node.url, 'activeWallet', {
      wallet,
      private: priv,
    });
    expect(activated).toEqual({ wallet, ophash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [pending] = await call<Array<{ optype: number }>>(node.url, 'findOperation', {
      ophash: activated.ophash,
    });
    expect(pending?.optype).toBe(5);
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

  it('activates a key-store wallet with its passphrase: the key never crosses the wire', async () => {
    const wallet = await newFundedWallet(node, '10');
    const wrong = await rpc(node.url, 'activeWallet', { wallet, passphrase: 'not it' });
    expect(wrong.error).toMatchObject({ code: 1030, data: { param: 'passphrase' } });
    const reply = await rpc(node.url, 'activeWallet', { wallet, passphrase: 'pw' });
    const result = reply.result as { wallet: string; ophash: string };
    expect(Object.keys(result).sort()).toEqual(['ophash', 'wallet']);
    expect(result.wallet).toBe(wallet);
    // What came back holds no key: no 32-byte scalar, no encoded key.
    expect(JSON.stringify(reply)).not.toMatch(/ca022000|[0-9a-f]{64}[0-9a-f]/);
    const block = await mined(node, result.ophash);
    expect(block.block).toBeGreaterThan(0);
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
    expect(info.state).toBe('normal wallet');
  });

  it('takes exactly one of passphrase and private (-32602 naming the one at fault)', async () => {
    const wallet = await newFundedWallet(node, '1');
    const neither = await rpc(node.url, 'activeWallet', { wallet });
    expect(neither.error).toMatchObject({ code: -32602, data: { param: 'passphrase' } });
    expect(neither.error!.message).toContain('exactly one');
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    const both = await rpc(node.url, 'activeWallet', { wallet, passphrase: 'pw', private: priv });
    expect(both.error).toMatchObject({ code: -32602, data: { param: 'private' } });
    expect(both.error!.message).not.toContain(priv);
    // Locked: refused like every other use of the key.
    await call(node.url, 'lockWallet', { wallet });
    const locked = await rpc(node.url, 'activeWallet', { wallet, passphrase: 'pw' });
    expect(locked.error).toMatchObject({ code: 1015, data: { param: 'wallet' } });
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

  it('lockWallet of a locked wallet answers true again: it is locked, and stays so', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    expect(await call(node.url, 'lockWallet', { wallet })).toBe(true);
    expect(await call(node.url, 'lockWallet', { wallet })).toBe(true);
    expect(
      (await call<{ key_state: string }>(node.url, 'getWalletInfo', { wallet })).key_state,
    ).toBe('locked');
    expect(await call(node.url, 'unlockWallet', { wallet, passphrase: 'pw' })).toBe(true);
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

  it('inputPrivateKey of a key already in the key store encrypts it again under the new passphrase', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', {
      passphrase: 'first',
    });
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'first',
    });
    const dump = (passphrase: string) => rpc(node.url, 'dumpPrivateKey', { wallet, passphrase });

    expect(
      await call(node.url, 'inputPrivateKey', { private: priv.slice(8), passphrase: 'second' }),
    ).toEqual({ status: true, wallet });
    expect((await dump('second')).result).toEqual({ status: true, priv });
    expect((await dump('first')).error).toMatchObject({
      code: 1030,
      data: { param: 'passphrase' },
    });

    // A locked wallet stays locked, under its new passphrase.
    expect(await call(node.url, 'lockWallet', { wallet })).toBe(true);
    expect(await call(node.url, 'inputPrivateKey', { private: priv, passphrase: 'third' })).toEqual(
      { status: true, wallet },
    );
    expect(
      (await call<{ key_state: string }>(node.url, 'getWalletInfo', { wallet })).key_state,
    ).toBe('locked');
    expect((await dump('third')).error).toMatchObject({ code: 1015 });
    expect(
      (await rpc(node.url, 'unlockWallet', { wallet, passphrase: 'second' })).error,
    ).toMatchObject({ code: 1030 });
    expect(await call(node.url, 'unlockWallet', { wallet, passphrase: 'third' })).toBe(true);
    expect((await dump('third')).result).toEqual({ status: true, priv });
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
    // Well formed but not this message's signature: false as well.
    const forged = `${signed.sig.slice(0, 2)}${'11'.repeat(64)}`;
    expect(await call(node.url, 'verifyMessage', { data: { ...signed, sig: forged } })).toBe(false);
  });

  it('refuses a malformed signed message, naming the field (not false)', async () => {
    const signed = await call<Record<string, unknown>>(node.url, 'signMessage', {
      wallet: dev,
      passphrase: 'dev',
      message: 'fields',
    });
    const { enc: _enc, ...withoutEnc } = signed;
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ ...signed, sig: 'zz' }, 1016, 'INVALID_SIGNED_MESSAGE', 'data.sig'],
      [{ ...signed, sig: `0x${signed.sig}` }, 1016, 'INVALID_SIGNED_MESSAGE', 'data.sig'],
      [{ ...signed, version: 7 }, 1016, 'INVALID_SIGNED_MESSAGE', 'data.version'],
      [withoutEnc, 1016, 'INVALID_SIGNED_MESSAGE', 'data.enc'],
      [{ ...signed, msg: 42 }, 1016, 'INVALID_SIGNED_MESSAGE', 'data.msg'],
      [{ ...signed, enc: 'ca02' }, 1005, 'INVALID_PUBLIC_KEY', 'data.enc'],
      [
        { ...signed, wallet: `${dev.slice(0, -1)}x` },
        1002,
        'INVALID_ADDRESS_FORMAT',
        'data.wallet',
      ],
    ];
    for (const [data, code, reason, param] of cases) {
      const reply = await rpc(node.url, 'verifyMessage', { data });
      expect(reply.error, param).toMatchObject({ code, data: { reason, param } });
    }
  });

  it('refuses data that is not an object (-32602, param data)', async () => {
    expect((await rpc(node.url, 'verifyMessage', { data: 'x' })).error).toMatchObject({
      code: -32602,
      data: { param: 'data' },
    });
  });
});

describe('walletRefresh', () => {
  it('loads plain v3 files of other wallets (ethers scrypt, PBKDF2); each signs once its chain address comes with its passphrase', async () => {
    // Written by other implementations: ethers' Wallet.encrypt cut down to the v3 fields, and a
    // PBKDF2 file made per the v3 definition with node:crypto, which ethers opens too.
    const fromEthers = Wallet.createRandom();
    const encrypted = JSON.parse(await fromEthers.encrypt('ethers pass'));
    const ethersFile = {
      version: 3,
      id: encrypted.id,
      address: encrypted.address,
      crypto: encrypted.Crypto,
    };
    const pbkdf2Key = randomPrivateKey();
    const pbkdf2File = await makePbkdf2KeyFile(pbkdf2Key, 'pbkdf2 pass');
    expect((await decryptKeystoreJson(pbkdf2File, 'pbkdf2 pass')).privateKey).toBe(
      `0x${bytesToHex(pbkdf2Key)}`,
    );
    const dir = join(node.datadir, 'keystore');
    await writeFile(join(dir, 'from-ethers.json'), JSON.stringify(ethersFile));
    await writeFile(join(dir, 'from-pbkdf2.json'), pbkdf2File);

    const count = await call<number>(node.url, 'getKeyStoreCount');
    // Two files that are no wallets yet (each waits for its passphrase): not all is usable.
    expect(await call(node.url, 'walletRefresh')).toBe(false);
    const details = await call<{
      loaded: number;
      unresolved: Array<{ file: string; eth_address: string | null }>;
      failed: unknown[];
    }>(node.url, 'walletRefresh', { details: true });
    expect(details.loaded).toBe(count);
    expect(details.failed).toEqual([]);
    expect(details.unresolved).toEqual(
      expect.arrayContaining([
        { file: 'from-ethers.json', eth_address: fromEthers.address.slice(2).toLowerCase() },
        { file: 'from-pbkdf2.json', eth_address: null },
      ]),
    );

    // Its owner knows the ethers file by its 0x address only: a read says how to resolve it, and
    // unlockWallet with that address and the passphrase resolves it; then the read answers for it.
    const ethersWallet = addressFromPublicKey(
      'CH',
      getPublicKey(hexToBytes(fromEthers.privateKey.slice(2))),
    );
    const unresolvedRead = await rpc(node.url, 'getWalletInfo', { wallet: fromEthers.address });
    expect(unresolvedRead.error).toMatchObject({
      code: 1010,
      data: { reason: 'UNKNOWN_WALLET', param: 'wallet' },
    });
    expect(unresolvedRead.error!.message).toContain('unlockWallet');
    const wrongPass = await rpc(node.url, 'unlockWallet', {
      wallet: fromEthers.address,
      passphrase: 'not it',
    });
    expect(wrongPass.error).toMatchObject({ code: 1030, data: { param: 'passphrase' } });
    // As walletRefresh listed it (40 hex digits, no 0x).
    const listed = details.unresolved.find((f) => f.file === 'from-ethers.json')!.eth_address!;
    expect(
      await call(node.url, 'unlockWallet', { wallet: listed, passphrase: 'ethers pass' }),
    ).toBe(true);
    const byEthAddress = await call<WalletInfo>(node.url, 'getWalletInfo', {
      wallet: fromEthers.address,
    });
    expect(byEthAddress.wallet).toBe(ethersWallet);
    expect((byEthAddress as WalletInfo & { key_state: string }).key_state).toBe('unlocked');
    const stranger = await rpc(node.url, 'getWalletInfo', { wallet: `0x${'ab'.repeat(20)}` });
    expect(stranger.error).toMatchObject({ code: 1010, data: { param: 'wallet' } });
    // The PBKDF2 file gives no address: it still waits, so walletRefresh still says false.
    expect(await call(node.url, 'walletRefresh')).toBe(false);

    // The ethers key signs a message.
    const signed = await call<Record<string, unknown>>(node.url, 'signMessage', {
      wallet: ethersWallet,
      passphrase: 'ethers pass',
      message: 'signed with a key from ethers',
    });
    expect(signed.wallet).toBe(ethersWallet);
    expect(await call(node.url, 'verifyMessage', { data: signed })).toBe(true);

    // The PBKDF2 key, funded and activated, sends coins with its passphrase.
    const pbkdf2Wallet = addressFromPublicKey('CH', getPublicKey(pbkdf2Key));
    const funding = await call<{ ophash: string }>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: pbkdf2Wallet,
      amount: '3',
    });
    await mined(node, funding.ophash);
    await call(node.url, 'activeWallet', {
      wallet: pbkdf2Wallet,
      private: `ca022000${bytesToHex(pbkdf2Key)}`,
    });
    await waitFor('activation', async () => {
      const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: pbkdf2Wallet });
      return info.state === 'normal wallet';
    });
    const sent = await call<{ ophash: string; signer_account: string }>(node.url, 'sendTo', {
      sender: pbkdf2Wallet,
      passphrase: 'pbkdf2 pass',
      receiver: dev,
      amount: '1',
    });
    expect(sent.signer_account).toBe(pbkdf2Wallet);
    expect((await mined(node, sent.ophash)).block).toBeGreaterThan(0);

    // Both are wallets of the key store now, for good: every file is usable.
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(count + 2);
    const after = await call<{ unresolved: unknown[] }>(node.url, 'walletRefresh', {
      details: true,
    });
    expect(after.unresolved).toEqual([]);
    expect(await call(node.url, 'walletRefresh')).toBe(true);
  });

  it('reports a file it cannot load: false, which file and why in the details, and in the log', async () => {
    const broken = join(node.datadir, 'keystore', 'broken-key.json');
    await writeFile(broken, '{"version": 3, "crypto": ');
    try {
      expect(await call(node.url, 'walletRefresh')).toBe(false);
      const details = await call<{ failed: unknown[] }>(node.url, 'walletRefresh', {
        details: true,
      });
      expect(details.failed).toEqual([{ file: 'broken-key.json', reason: 'not JSON' }]);
      await waitFor('the log line', async () =>
        node
          .stdout()
          .split('\n')
          .some((line) => {
            return line.includes('key file not loaded') && line.includes('broken-key.json');
          }),
      );
    } finally {
      await rm(broken);
    }
    expect(await call(node.url, 'walletRefresh')).toBe(true);
  });

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
