import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressFromPublicKey, bytesToHex, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { createKeyStore, type KeyStore } from '@chain/keystore';
import { type Chain, createChain, createDevGenesis } from '@chain/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './logger';
import { loadMineWallets, MINE_PASSPHRASE_ENV } from './mine-wallets';
import { createProducerKeys } from './producer-keys';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A chain whose genesis producer is `producerKey`, and a key store holding it. */
async function setup(
  producerKey: Uint8Array,
): Promise<{ chain: Chain; keystore: KeyStore; dir: string; wallet: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mine-wallets-'));
  const publicKey = getPublicKey(producerKey);
  const wallet = addressFromPublicKey('CH', publicKey);
  const genesis = createDevGenesis({
    network: 'mine-test',
    accounts: [{ address: wallet, publicKey: bytesToHex(publicKey), balance: 1n }],
    producers: [wallet],
  });
  const chain = createChain({ dataDir: join(dir, 'chain'), genesis });
  await chain.open();
  const keystore = createKeyStore({
    dir: join(dir, 'keystore'),
    addressOf: (key) => addressFromPublicKey('CH', key),
    scrypt: { N: 2 ** 10, r: 8, p: 1 },
  });
  await keystore.open();
  await keystore.importKey(producerKey, 'mine secret');
  cleanups.push(async () => {
    await keystore.close();
    await chain.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { chain, keystore, dir, wallet };
}

const silent = createLogger('silent');

describe('--mine-wallet', () => {
  it('unlocks the wallet with the passphrase file and adds its key to the producer keys', async () => {
    const key = randomPrivateKey();
    const { chain, keystore, dir, wallet } = await setup(key);
    const file = join(dir, 'pass.txt');
    await writeFile(file, 'mine secret\nignored second line\n');
    const keys = createProducerKeys();
    const loaded = await loadMineWallets(
      { mineWallets: [wallet], minePassphraseFile: file },
      chain,
      keystore,
      keys,
      silent,
      {},
    );
    expect(loaded).toBe(1);
    expect([...keys.keys()]).toEqual([key]);
    expect(chain.producerAccount([...keys.keys()][0]!)).toBe(0);
  });

  it('takes the passphrase from CHAIN_MINE_PASSPHRASE, and fails clearly without one or with a wrong one', async () => {
    const { chain, keystore, wallet } = await setup(randomPrivateKey());
    const options = { mineWallets: [wallet], minePassphraseFile: '' };
    const keys = createProducerKeys();
    await loadMineWallets(options, chain, keystore, keys, silent, {
      [MINE_PASSPHRASE_ENV]: 'mine secret',
    });
    expect(keys.count()).toBe(1);
    await expect(loadMineWallets(options, chain, keystore, keys, silent, {})).rejects.toMatchObject(
      {
        reason: 'NO_MINE_PASSPHRASE',
      },
    );
    await expect(
      loadMineWallets(options, chain, keystore, keys, silent, { [MINE_PASSPHRASE_ENV]: 'wrong' }),
    ).rejects.toMatchObject({ reason: 'WRONG_PASSPHRASE' });
    const stranger = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
    await expect(
      loadMineWallets(
        { mineWallets: [stranger], minePassphraseFile: '' },
        chain,
        keystore,
        keys,
        silent,
        {
          [MINE_PASSPHRASE_ENV]: 'mine secret',
        },
      ),
    ).rejects.toMatchObject({ reason: 'MINE_WALLET_NOT_IN_KEYSTORE' });
  });

  it('does not load a locked wallet: a locked wallet signs no block', async () => {
    const { chain, keystore, wallet } = await setup(randomPrivateKey());
    await keystore.lock(wallet);
    const keys = createProducerKeys();
    const loaded = await loadMineWallets(
      { mineWallets: [wallet.toUpperCase().replace(/^CH/, 'CH')], minePassphraseFile: '' },
      chain,
      keystore,
      keys,
      silent,
      { [MINE_PASSPHRASE_ENV]: 'mine secret' },
    );
    expect(loaded).toBe(0);
    expect(keys.count()).toBe(0);
  });
});
