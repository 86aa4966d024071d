import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterEach } from 'vitest';
import { encryptKeyFile } from '../src/key-file';
import { createCreationClock, keyFileName } from '../src/key-file-name';

/** The embedded dev network's address derivation (DESIGN §2), as the node passes it. */
export const DEV_PREFIX = 'CH';
export const devAddressOf = (publicKey33: Uint8Array): string =>
  addressFromPublicKey(DEV_PREFIX, publicKey33);

/** The light cost the dev network uses; the standard N=2^18 is kept for one interop test. */
export const LIGHT_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };

/**
 * A fresh directory under the OS temp dir, removed after the current test. Returns the path of a
 * not-yet-existing `keystore` directory inside it, so tests also see the store create it.
 */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const root = await mkdtemp(join(tmpdir(), 'chain-keystore-'));
    made.push(root);
    return join(root, 'keystore');
  };
}

/**
 * The two test vectors of the Web3 Secret Storage Definition (ethereum/wiki, "Test Vectors"),
 * reproduced by geth, web3.js, keythereum and ethers. Both hold the private key below under the
 * password "testpassword"; the address is the one ethers' and web3swift's suites assert for it.
 * `derivedKeyPrefix` is the AES key (first 16 derived bytes) keythereum's suite asserts. The
 * scrypt vector uses N=2^18 with r=1, which OpenSSL refuses (RFC 7914 wants N < 2^(16 r)).
 */
export const WIKI_VECTORS = {
  password: 'testpassword',
  privateKey: '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d',
  address: '008aeeda4d805471df9b2a5b0f38a0c3bcba786b',
  scrypt: {
    json: {
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
        ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
        kdf: 'scrypt',
        kdfparams: {
          dklen: 32,
          n: 262144,
          r: 1,
          p: 8,
          salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
        },
        mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
      },
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      version: 3,
    },
  },
  pbkdf2: {
    derivedKeyPrefix: 'f06d69cdc7da0faffb1008270bca38f5',
    json: {
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
        ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
        kdf: 'pbkdf2',
        kdfparams: {
          c: 262144,
          dklen: 32,
          prf: 'hmac-sha256',
          salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
        },
        mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
      },
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      version: 3,
    },
  },
} as const;

/** Resolves with the rejection of `promise` (failing the test if it fulfils). */
export async function rejectionOf(
  promise: Promise<unknown>,
): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection');
}

/** A clock the test moves by hand, whose sleeps end only when woken (a key store's `clock`). */
export function manualClock() {
  let time = 0;
  const sleeping: Array<() => void> = [];
  return {
    now: () => time,
    sleep: (_ms: number) => new Promise<void>((resolve) => sleeping.push(resolve)),
    advance(ms: number) {
      time += ms;
    },
    /** Sleeps not ended yet. */
    sleepers: () => sleeping.length,
    /** Ends the oldest sleep. */
    wake() {
      sleeping.shift()?.();
    },
  };
}

/**
 * Lets every promise already settled run its callbacks, and the I/O they start (the index's reads,
 * a stat of a key file) complete: a few rounds of the event loop, each past the I/O phase.
 */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Every wallet of a store, in creation order (one page as large as any test store). */
export function listOf(store: { page(after: string | undefined, max: number): Promise<string[]> }) {
  return store.page(undefined, 1_000_000);
}

/**
 * `count` key files in our format (passphrase `p`), written straight into `dir` as another node
 * would have (no index, no fsync): what a store of before the index, or a restored backup, holds.
 * Their chain addresses, in creation order.
 */
export async function writeWalletFiles(
  dir: string,
  count: number,
  scrypt = { N: 16, r: 8, p: 1 },
): Promise<string[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const nextTime = createCreationClock();
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = randomPrivateKey();
    const address = devAddressOf(getPublicKey(privateKey));
    const json = await encryptKeyFile(privateKey, 'p', scrypt, address);
    await writeFile(join(dir, keyFileName(nextTime(), address)), JSON.stringify(json));
    addresses.push(address);
  }
  return addresses;
}
