import { pbkdf2, scrypt } from 'node:crypto';
import { scryptAsync } from '@noble/hashes/scrypt.js';

/** Web3 Secret Storage v3 derives 32 bytes: 16 for AES-128, 16 for the MAC. */
export const DERIVED_KEY_LENGTH = 32;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export type KdfParams =
  | ({ kdf: 'scrypt'; salt: Uint8Array } & ScryptParams)
  | { kdf: 'pbkdf2'; salt: Uint8Array; c: number; prf: 'hmac-sha256' | 'hmac-sha512' };

/**
 * Upper bounds on the work a key file may ask for. A file is untrusted input: without a bound a
 * copied-in file could ask for gigabytes of memory or hours of CPU on every unlock attempt.
 * Geth's "standard" scrypt is N=2^18, r=8, p=1; these bounds leave room above it.
 */
export const KDF_LIMITS = {
  maxScryptN: 2 ** 20,
  maxScryptR: 32,
  maxScryptP: 16,
  /** 128 * N * r bytes of scrypt working memory. */
  maxScryptMemory: 1024 * 1024 * 1024,
  maxPbkdf2Iterations: 10_000_000,
} as const;

/** Why scrypt parameters are unacceptable, or null when they are fine. */
export function scryptParamsProblem({ N, r, p }: ScryptParams): string | null {
  if (!Number.isSafeInteger(N) || N < 2 || (N & (N - 1)) !== 0) {
    return 'scrypt N must be a power of 2 above 1';
  }
  if (N > KDF_LIMITS.maxScryptN) return `scrypt N above ${KDF_LIMITS.maxScryptN}`;
  if (!Number.isSafeInteger(r) || r < 1 || r > KDF_LIMITS.maxScryptR) {
    return `scrypt r must be in [1, ${KDF_LIMITS.maxScryptR}]`;
  }
  if (!Number.isSafeInteger(p) || p < 1 || p > KDF_LIMITS.maxScryptP) {
    return `scrypt p must be in [1, ${KDF_LIMITS.maxScryptP}]`;
  }
  if (128 * N * r > KDF_LIMITS.maxScryptMemory) return 'scrypt memory (128 * N * r) above 1 GiB';
  return null;
}

/**
 * OpenSSL refuses scrypt when its working set (about 128 * r * (N + p) bytes) exceeds `maxmem`,
 * and Node's default of 32 MiB is below the standard N=2^18, r=8 (256 MiB): size it per call.
 */
function scryptMaxmem({ N, r, p }: ScryptParams): number {
  return 128 * r * (N + p + 2) + 1024 * 1024;
}

/**
 * OpenSSL enforces RFC 7914's N < 2^(16 r), which other v3 implementations do not: the Web3 Secret
 * Storage test vector itself uses N=2^18 with r=1. Such files are derived with noble's pure scrypt.
 */
function opensslAccepts({ N, r }: ScryptParams): boolean {
  return 16 * r >= 53 || N < 2 ** (16 * r);
}

/**
 * Derives the 32-byte key through the libuv thread pool (never the synchronous variants), so the
 * event loop keeps serving other requests while a passphrase is checked. The rare parameters
 * OpenSSL refuses run in noble's scryptAsync, which yields to the event loop every 10 ms.
 */
export async function deriveKey(passphrase: Uint8Array, params: KdfParams): Promise<Buffer> {
  if (params.kdf === 'scrypt' && !opensslAccepts(params)) {
    const { N, r, p } = params;
    const maxmem = scryptMaxmem(params);
    const key = await scryptAsync(passphrase, params.salt, {
      N,
      r,
      p,
      dkLen: DERIVED_KEY_LENGTH,
      maxmem,
    });
    return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  }
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, key: Buffer) => (error ? reject(error) : resolve(key));
    if (params.kdf === 'scrypt') {
      const { N, r, p } = params;
      scrypt(
        passphrase,
        params.salt,
        DERIVED_KEY_LENGTH,
        { N, r, p, maxmem: scryptMaxmem(params) },
        done,
      );
    } else {
      const digest = params.prf === 'hmac-sha256' ? 'sha256' : 'sha512';
      pbkdf2(passphrase, params.salt, params.c, DERIVED_KEY_LENGTH, digest, done);
    }
  });
}
