import { createCipheriv, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesToHex, getPublicKey, hexToBytes, keccak256, randomPrivateKey } from '@chain/crypto';
import { computeAddress, decryptKeystoreJson, encryptKeystoreJson, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { devAddressOf, LIGHT_SCRYPT, listOf, useTempDirs, WIKI_VECTORS } from '../test/fixtures';
import { createKeyStore, DEFAULT_KEYSTORE_OPTIONS, type KeyStoreOptions } from './keystore';

// Interoperability with ethers v6, an independent Web3 Secret Storage implementation.

const newDir = useTempDirs();

async function openStore(dir: string, options: Partial<KeyStoreOptions> = {}) {
  const store = createKeyStore({ dir, addressOf: devAddressOf, scrypt: LIGHT_SCRYPT, ...options });
  await store.open();
  // A directory written before the index existed is indexed in the background first.
  await store.indexed();
  return store;
}

async function onlyKeyFile(dir: string): Promise<string> {
  const names = (await readdir(dir)).filter((name) => !name.startsWith('.'));
  expect(names).toHaveLength(1);
  return readFile(join(dir, names[0]!), 'utf8');
}

describe('files written here open in ethers', () => {
  it('decryptKeystoreJson and Wallet.fromEncryptedJson give the same key and address', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const passphrase = 'pässwörd ✓';
    const address = await store.create(passphrase);
    const privateKey = await store.getPrivateKey(address, passphrase);
    const json = await onlyKeyFile(dir);

    const account = await decryptKeystoreJson(json, passphrase);
    expect(account.privateKey).toBe(`0x${bytesToHex(privateKey)}`);
    const wallet = await Wallet.fromEncryptedJson(json, passphrase);
    expect(wallet.privateKey).toBe(`0x${bytesToHex(privateKey)}`);
    expect(wallet.address).toBe(computeAddress(`0x${bytesToHex(privateKey)}`));
    await expect(decryptKeystoreJson(json, 'wrong')).rejects.toThrow(/incorrect password/);
    await store.close();
  });

  it('at the standard cost (N=2^18), the default', async () => {
    const dir = await newDir();
    const store = await openStore(dir, { scrypt: DEFAULT_KEYSTORE_OPTIONS.scrypt });
    const privateKey = randomPrivateKey();
    await store.importKey(privateKey, 'standard');
    const json = await onlyKeyFile(dir);
    expect(JSON.parse(json).crypto.kdfparams).toMatchObject({ n: 2 ** 18, r: 8, p: 1 });
    const account = await decryptKeystoreJson(json, 'standard');
    expect(account.privateKey).toBe(`0x${bytesToHex(privateKey)}`);
    await store.close();
  }, 30_000);
});

describe('files written by ethers load here', () => {
  it("at ethers' default cost (N=2^17), through refresh and resolveForeign", async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const wallet = Wallet.createRandom();
    const json = await encryptKeystoreJson(
      { address: wallet.address, privateKey: wallet.privateKey },
      'from ethers',
    );
    expect(JSON.parse(json).Crypto.kdfparams.n).toBe(2 ** 17);
    const ethAddress = wallet.address.slice(2).toLowerCase();
    await writeFile(join(dir, `UTC--2024-05-06T07-08-09.0Z--${ethAddress}`), json);
    await store.refresh();

    const address = await store.resolveForeign(ethAddress, 'from ethers');
    const privateKey = hexToBytes(wallet.privateKey);
    expect(address).toBe(devAddressOf(getPublicKey(privateKey)));
    expect(await store.getPrivateKey(address, 'from ethers')).toEqual(privateKey);
    // After the chain field was added, ethers still opens the file.
    const rewritten = await onlyKeyFile(dir);
    expect((await decryptKeystoreJson(rewritten, 'from ethers')).privateKey).toBe(
      wallet.privateKey,
    );
    await store.close();
  }, 30_000);

  it('the Web3 Secret Storage scrypt vector (N=2^18, r=1, p=8), as a copied-in file', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const file = { ...WIKI_VECTORS.scrypt.json, address: WIKI_VECTORS.address };
    await writeFile(join(dir, 'vector.json'), JSON.stringify(file));
    expect(await store.refresh()).toMatchObject({ added: 1, removed: 0, invalid: [] });
    // Read by its Ethereum address: waiting (null) until resolved, then its wallet; another: none.
    expect(await store.walletOfEthereumAddress(`0x${WIKI_VECTORS.address}`)).toBeNull();
    expect(await store.walletOfEthereumAddress('ab'.repeat(20))).toBeUndefined();
    const address = await store.resolveForeign(WIKI_VECTORS.address, WIKI_VECTORS.password);
    expect(await store.walletOfEthereumAddress(WIKI_VECTORS.address.toUpperCase())).toBe(address);
    expect(bytesToHex(await store.getPrivateKey(address, WIKI_VECTORS.password))).toBe(
      WIKI_VECTORS.privateKey,
    );
    await store.close();
  }, 30_000);
});

/**
 * A v3 file with the PBKDF2 KDF, written from the Web3 Secret Storage definition with node:crypto
 * alone: derived key = PBKDF2-HMAC-SHA256(passphrase, salt, c, 32); ciphertext = AES-128-CTR under
 * its first 16 bytes; mac = keccak256(derived[16..32] || ciphertext). Fields: version, id, crypto.
 */
function pbkdf2KeyFile(privateKey: Uint8Array, passphrase: string, c: number): string {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = pbkdf2Sync(Buffer.from(passphrase, 'utf8'), salt, c, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]));
  return JSON.stringify({
    version: 3,
    id: randomUUID(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'pbkdf2',
      kdfparams: { c, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
      mac: bytesToHex(mac),
    },
  });
}

describe('plain v3 files of other implementations become wallets on first use', () => {
  it('PBKDF2-HMAC-SHA256 (c=262144) written per the spec, no address: ethers opens it, so does the store', async () => {
    const privateKey = randomPrivateKey();
    const json = pbkdf2KeyFile(privateKey, 'pbkdf2 pass', 262_144);
    expect((await decryptKeystoreJson(json, 'pbkdf2 pass')).privateKey).toBe(
      `0x${bytesToHex(privateKey)}`,
    );
    const dir = await newDir();
    const store = await openStore(dir);
    await writeFile(join(dir, 'pbkdf2.json'), json);
    expect(await store.refresh()).toMatchObject({
      added: 1,
      loaded: 0,
      unresolved: [{ file: 'pbkdf2.json', ethAddress: null }],
      invalid: [],
    });
    const address = devAddressOf(getPublicKey(privateKey));
    expect(await store.getPrivateKey(address, 'pbkdf2 pass')).toEqual(privateKey);
    expect(await listOf(store)).toEqual([address]);
    // Resolving added the address and chain fields; ethers still opens the file.
    expect((await decryptKeystoreJson(await onlyKeyFile(dir), 'pbkdf2 pass')).privateKey).toBe(
      `0x${bytesToHex(privateKey)}`,
    );
    await store.close();
  }, 30_000);

  it('ethers Wallet.encrypt (scrypt), cut down to version, id, address and crypto', async () => {
    const wallet = Wallet.createRandom();
    const full = JSON.parse(await wallet.encrypt('ethers pass'));
    const plain = { version: 3, id: full.id, address: full.address, crypto: full.Crypto };
    const dir = await newDir();
    const store = await openStore(dir);
    await writeFile(join(dir, 'ethers.json'), JSON.stringify(plain));
    expect((await store.refresh()).unresolved).toEqual([
      { file: 'ethers.json', ethAddress: wallet.address.slice(2).toLowerCase() },
    ]);
    const privateKey = hexToBytes(wallet.privateKey);
    const address = devAddressOf(getPublicKey(privateKey));
    expect(await store.getPrivateKey(address, 'ethers pass')).toEqual(privateKey);
    await store.close();
  }, 30_000);
});
