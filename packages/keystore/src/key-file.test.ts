import { bytesToHex, getPublicKey, isValidPrivateKey, randomPrivateKey } from '@chain/crypto';
import { computeAddress, decryptKeystoreJson, encryptKeystoreJson } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { devAddressOf, LIGHT_SCRYPT, WIKI_VECTORS } from '../test/fixtures';
import { KeyStoreError } from './errors';
import { deriveKey } from './kdf';
import { decryptKeyFile, encryptKeyFile, parseKeyFile } from './key-file';

/** scrypt cheap enough to run dozens of times in a property; the format allows any power of 2. */
const TINY_SCRYPT = { N: 16, r: 8, p: 1 };

function withAddress<T extends object>(json: T): T & { address: string } {
  return { ...json, address: WIKI_VECTORS.address };
}

describe('Web3 Secret Storage test vectors', () => {
  it('derives the published AES key with PBKDF2', async () => {
    const file = parseKeyFile(WIKI_VECTORS.pbkdf2.json);
    const derived = await deriveKey(Buffer.from(WIKI_VECTORS.password), file.kdf);
    expect(bytesToHex(derived.subarray(0, 16))).toBe(WIKI_VECTORS.pbkdf2.derivedKeyPrefix);
  });

  it('derives RFC 7914 §12 scrypt vector 3 through node:crypto', async () => {
    // scrypt(P="password", S="NaCl", N=1024, r=8, p=16): the first 32 of its 64 published bytes.
    const derived = await deriveKey(Buffer.from('password'), {
      kdf: 'scrypt',
      salt: Buffer.from('NaCl'),
      N: 1024,
      r: 8,
      p: 16,
    });
    expect(bytesToHex(derived)).toBe(
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162',
    );
  });

  it('decrypts the PBKDF2 vector to the published key (the scrypt one: interop.test.ts)', async () => {
    const file = parseKeyFile(withAddress(WIKI_VECTORS.pbkdf2.json));
    expect(file.ethAddress).toBe(WIKI_VECTORS.address);
    const key = await decryptKeyFile(file, WIKI_VECTORS.password);
    expect(key && bytesToHex(key)).toBe(WIKI_VECTORS.privateKey);
  });

  it('returns null for a wrong password (MAC mismatch)', async () => {
    const file = parseKeyFile(WIKI_VECTORS.pbkdf2.json);
    expect(await decryptKeyFile(file, 'testpassword2')).toBeNull();
  });

  it('refuses a file whose address is not the key it decrypts to', async () => {
    const other = 'ff'.repeat(20);
    const file = parseKeyFile({ ...WIKI_VECTORS.pbkdf2.json, address: other });
    const error = await decryptKeyFile(file, WIKI_VECTORS.password).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyStoreError);
    expect((error as KeyStoreError).reason).toBe('INVALID_KEY_FILE');
  });
});

describe('encryptKeyFile', () => {
  it('writes the standard v3 fields plus the chain extension', async () => {
    const privateKey = randomPrivateKey();
    const publicKey = getPublicKey(privateKey);
    const json = await encryptKeyFile(privateKey, 'pw', LIGHT_SCRYPT, devAddressOf(publicKey));
    expect(json.version).toBe(3);
    expect(json.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    // ethers computes the Ethereum address independently from the same key.
    expect(json.address).toBe(
      computeAddress(`0x${bytesToHex(privateKey)}`)
        .slice(2)
        .toLowerCase(),
    );
    expect(json.crypto.cipher).toBe('aes-128-ctr');
    expect(json.crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/);
    expect(json.crypto.ciphertext).toMatch(/^[0-9a-f]{64}$/);
    expect(json.crypto.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(json.crypto.kdf).toBe('scrypt');
    expect(json.crypto.kdfparams).toMatchObject({ dklen: 32, n: 4096, r: 8, p: 1 });
    expect(json.crypto.kdfparams.salt).toMatch(/^[0-9a-f]{64}$/);
    expect(json.chain).toEqual({
      address: devAddressOf(publicKey),
      publicKey: bytesToHex(publicKey),
    });
    // The ciphertext must not be the key itself.
    expect(json.crypto.ciphertext).not.toBe(bytesToHex(privateKey));
  });

  it('round-trips any key and passphrase, and ethers agrees', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter(isValidPrivateKey),
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        async (privateKey, passphrase) => {
          const publicKey = getPublicKey(privateKey);
          const json = await encryptKeyFile(
            privateKey,
            passphrase,
            TINY_SCRYPT,
            devAddressOf(publicKey),
          );
          const file = parseKeyFile(JSON.parse(JSON.stringify(json)));
          const decrypted = await decryptKeyFile(file, passphrase);
          expect(decrypted).toEqual(privateKey);
          const account = await decryptKeystoreJson(JSON.stringify(json), passphrase);
          expect(account.privateKey).toBe(`0x${bytesToHex(privateKey)}`);
          expect(await decryptKeyFile(file, `${passphrase}x`)).toBeNull();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('normalises passphrases to NFKC like ethers, and still opens files keyed on raw UTF-8', async () => {
    const privateKey = randomPrivateKey();
    const address = `0x${bytesToHex(privateKey)}`;
    const angstromSign = '\u212B'; // NFKC: U+00C5
    const ours = await encryptKeyFile(privateKey, angstromSign, TINY_SCRYPT, 'CH');
    expect((await decryptKeystoreJson(JSON.stringify(ours), angstromSign)).privateKey).toBe(
      address,
    );
    expect(await decryptKeyFile(parseKeyFile(ours), '\u00C5')).toEqual(privateKey);

    // A geth-style file: scrypt over the raw bytes (ethers takes bytes as given).
    const raw = await encryptKeystoreJson(
      { address: computeAddress(address), privateKey: address },
      Buffer.from(angstromSign, 'utf8'),
      { scrypt: TINY_SCRYPT },
    );
    expect(await decryptKeyFile(parseKeyFile(JSON.parse(raw)), angstromSign)).toEqual(privateKey);
  });
});

describe('parseKeyFile', () => {
  interface TestFile {
    crypto: {
      cipher: string;
      cipherparams: { iv: string };
      ciphertext: string;
      kdf: string;
      kdfparams: { dklen: number; n: number; r: number; p: number; salt: string };
      mac: string;
    };
    [field: string]: unknown;
  }
  const valid = () => structuredClone(withAddress(WIKI_VECTORS.scrypt.json)) as TestFile;

  it('accepts ethers spelling (Crypto) and 0x-prefixed hex', () => {
    const { crypto, ...rest } = valid();
    const json = {
      ...rest,
      address: `0x${WIKI_VECTORS.address.toUpperCase()}`,
      Crypto: { ...crypto, ciphertext: `0x${crypto.ciphertext}` },
    };
    const file = parseKeyFile(json);
    expect(bytesToHex(file.ciphertext)).toBe(WIKI_VECTORS.scrypt.json.crypto.ciphertext);
    expect(file.ethAddress).toBe(WIKI_VECTORS.address);
  });

  const withCrypto =
    (fields: Partial<TestFile['crypto']>) =>
    (j: TestFile): TestFile => ({ ...j, crypto: { ...j.crypto, ...fields } });
  const withKdfParams =
    (fields: Partial<TestFile['crypto']['kdfparams']>) =>
    (j: TestFile): TestFile =>
      withCrypto({ kdfparams: { ...j.crypto.kdfparams, ...fields } })(j);
  const ciphertext = WIKI_VECTORS.scrypt.json.crypto.ciphertext;

  const broken: Array<[string, (json: TestFile) => unknown]> = [
    ['not an object', () => 'text'],
    ['an array', () => []],
    ['version 1', (j) => ({ ...j, version: 1 })],
    ['no crypto', (j) => ({ ...j, crypto: undefined })],
    ['another cipher', withCrypto({ cipher: 'aes-128-cbc' })],
    ['a short iv', withCrypto({ cipherparams: { iv: 'abcd' } })],
    ['odd hex', withCrypto({ ciphertext: `${ciphertext}0` })],
    ['non-hex mac', withCrypto({ mac: 'zz'.repeat(32) })],
    ['a 31-byte ciphertext', withCrypto({ ciphertext: ciphertext.slice(2) })],
    ['an unknown kdf', withCrypto({ kdf: 'argon2' })],
    ['dklen 16', withKdfParams({ dklen: 16 })],
    ['N not a power of 2', withKdfParams({ n: 1000 })],
    ['N above the limit', withKdfParams({ n: 2 ** 24 })],
    ['r of 0', withKdfParams({ r: 0 })],
    ['a fractional p', withKdfParams({ p: 1.5 })],
    ['an empty salt', withKdfParams({ salt: '' })],
    ['a bad address', (j) => ({ ...j, address: 'xyz' })],
    [
      'a chain field without a valid key',
      (j) => ({ ...j, chain: { address: 'CH', publicKey: '02' } }),
    ],
  ];
  it.each(broken)('refuses a file with %s', (_name, breakIt) => {
    let error: unknown;
    try {
      parseKeyFile(breakIt(valid()));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeyStoreError);
    expect((error as KeyStoreError).reason).toBe('INVALID_KEY_FILE');
    expect((error as KeyStoreError).code).toBe(1016);
  });

  it('refuses a chain public key that contradicts the address field', async () => {
    const privateKey = randomPrivateKey();
    const json = await encryptKeyFile(privateKey, 'pw', TINY_SCRYPT, 'CH');
    expect(() => parseKeyFile({ ...json, address: WIKI_VECTORS.address })).toThrow(
      /does not match/,
    );
  });
});
