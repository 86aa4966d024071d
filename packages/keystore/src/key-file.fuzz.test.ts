import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ChainError, randomPrivateKey } from '@chain/crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { devAddressOf, useTempDirs } from '../test/fixtures';
import { KeyStoreError } from './errors';
import { decryptKeyFile, encryptKeyFile, type KeyFileJson, parseKeyFile } from './key-file';
import { createKeyStore } from './keystore';
import { LOCK_STATE_FILE, readLockState } from './lock-state';

// Fuzzing the key store's readers of files that anyone with access to the key directory can put
// there: key files (arbitrary JSON, valid files with fields edited), the lock state, and whole
// directories of garbage. Every outcome is a value or a KeyStoreError, never another exception; a
// directory of garbage still opens, listing what it skipped. FUZZ_RUNS scales the case counts.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** Cheap enough to decrypt in a property. */
const TINY_SCRYPT = { N: 16, r: 8, p: 1 };
const PASSPHRASE = 'fuzz';

const tempDir = useTempDirs();
let valid: KeyFileJson;

beforeAll(async () => {
  valid = await encryptKeyFile(
    randomPrivateKey(),
    PASSPHRASE,
    TINY_SCRYPT,
    devAddressOf(new Uint8Array(33)),
  );
});

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** The valid file with one field (top level, crypto, cipherparams or kdfparams) replaced. */
function editedFile(): fc.Arbitrary<unknown> {
  const field = fc.oneof(
    anyJson,
    fc.constantFrom('', '0x', '00', 'zz', 'ab'.repeat(16), 'ab'.repeat(33), '0x'.padEnd(66, 'f')),
    fc.constantFrom(0, 1, 2, 3, 16, 2 ** 20, 2 ** 21, -1, 1.5, '16', '1e3'),
  );
  return fc.oneof(
    fc
      .tuple(fc.constantFrom('version', 'id', 'address', 'crypto', 'Crypto', 'chain'), field)
      .map(([key, value]) => ({ ...valid, [key]: value })),
    fc
      .tuple(
        fc.constantFrom('cipher', 'ciphertext', 'kdf', 'mac', 'cipherparams', 'kdfparams'),
        field,
      )
      .map(([key, value]) => ({ ...valid, crypto: { ...valid.crypto, [key]: value } })),
    fc
      .tuple(fc.constantFrom('dklen', 'n', 'r', 'p', 'salt', 'c', 'prf'), field)
      .map(([key, value]) => ({
        ...valid,
        crypto: { ...valid.crypto, kdfparams: { ...valid.crypto.kdfparams, [key]: value } },
      })),
    fc.tuple(fc.constantFrom('address', 'publicKey'), field).map(([key, value]) => ({
      ...valid,
      chain: { ...valid.chain, [key]: value },
    })),
    fc.constant({
      ...valid,
      crypto: {
        ...valid.crypto,
        kdf: 'pbkdf2',
        kdfparams: { dklen: 32, c: 1, prf: 'hmac-sha256', salt: 'ab' },
      },
    }),
  );
}

/** A value or a KeyStoreError; anything else fails the property. */
function parsesOrRefuses<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    expect(error).toBeInstanceOf(KeyStoreError);
    return undefined;
  }
}

describe('key files', () => {
  it('parseKeyFile: a parsed file or INVALID_KEY_FILE, for arbitrary and edited JSON', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, editedFile()), (json) => {
        const file = parsesOrRefuses(() => parseKeyFile(json));
        if (file === undefined) return;
        expect(file.iv).toHaveLength(16);
        expect(file.mac).toHaveLength(32);
      }),
      { numRuns: RUNS },
    );
  });

  it('decryptKeyFile on an edited file: the key, null (wrong passphrase) or a KeyStoreError', async () => {
    let decrypted = 0;
    await fc.assert(
      fc.asyncProperty(
        editedFile(),
        fc.constantFrom(PASSPHRASE, 'wrong'),
        async (json, passphrase) => {
          const file = parsesOrRefuses(() => parseKeyFile(json));
          if (file === undefined) return;
          // Edits may ask for any cost the format allows; the property only pays for cheap ones.
          const { kdf } = file;
          if (kdf.kdf === 'scrypt' ? kdf.N * kdf.r * kdf.p > 2 ** 12 : kdf.c > 10_000) return;
          try {
            const key = await decryptKeyFile(file, passphrase);
            if (key !== null) decrypted++;
          } catch (error) {
            expect(error).toBeInstanceOf(KeyStoreError);
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
    expect(decrypted).toBeGreaterThan(0);
  });
});

describe('the key directory', () => {
  it('a lock state file of garbage: INVALID_LOCK_STATE, never another error', async () => {
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          anyJson.map((v) => JSON.stringify(v)),
        ),
        async (text) => {
          await writeFile(join(dir, LOCK_STATE_FILE), text);
          try {
            const locked = await readLockState(dir);
            expect(locked).toBeInstanceOf(Set);
          } catch (error) {
            expect((error as ChainError).reason).toBe('INVALID_LOCK_STATE');
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });

  it('opens over a directory of garbage files and lists them as invalid', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
            fc.oneof(anyJson, editedFile()).map((v) => JSON.stringify(v)),
          ),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        async (contents) => {
          const dir = await tempDir();
          await mkdir(dir, { recursive: true });
          await Promise.all(
            contents.map((content, i) => writeFile(join(dir, `garbage-${i}`), content)),
          );
          const store = createKeyStore({ dir, addressOf: devAddressOf, scrypt: TINY_SCRYPT });
          await store.open();
          try {
            await store.indexed();
            expect(
              store.count() + store.unresolved().length + store.invalidFiles().length,
            ).toBeLessThanOrEqual(contents.length);
            expect(
              store.count() + store.unresolved().length + store.invalidFiles().length,
            ).toBeGreaterThan(0);
            const refreshed = await store.refresh();
            expect(refreshed.added).toBe(0);
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 10) },
    );
  });
});
