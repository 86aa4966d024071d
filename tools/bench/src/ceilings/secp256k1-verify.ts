/**
 * The ceilings for anything that checks or makes signatures: libsecp256k1's ECDSA verify (and
 * sign) rate on one thread, called through the `secp256k1` npm package's native binding exactly as
 * the node's verifier threads call it, with nothing else around it.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

interface Secp256k1Binding {
  ecdsaSign(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array };
  ecdsaVerify(signature: Uint8Array, hash: Uint8Array, publicKey: Uint8Array): boolean;
  publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
  privateKeyVerify(privateKey: Uint8Array): boolean;
}

/** `secp256k1/bindings` as @chain/crypto resolves it (the native binding, never the JS fallback). */
export function loadSecp256k1Binding(): Secp256k1Binding {
  const require = createRequire(import.meta.url);
  const cryptoManifest = require.resolve('@chain/crypto/package.json');
  return createRequire(cryptoManifest)('secp256k1/bindings') as Secp256k1Binding;
}

export interface VerifyCase {
  signature: Uint8Array;
  hash: Uint8Array;
  publicKey: Uint8Array;
}

/** `count` valid (signature, hash, compressed key) triples over distinct random keys and hashes. */
export function makeVerifyCases(count: number, binding = loadSecp256k1Binding()): VerifyCase[] {
  const cases: VerifyCase[] = [];
  while (cases.length < count) {
    const privateKey = randomBytes(32);
    if (!binding.privateKeyVerify(privateKey)) continue;
    const hash = randomBytes(32);
    cases.push({
      signature: binding.ecdsaSign(hash, privateKey).signature,
      hash,
      publicKey: binding.publicKeyCreate(privateKey, true),
    });
  }
  return cases;
}

/**
 * Verifies the cases round-robin on this thread for at least `minMs` and returns verifies per
 * second. Throws if any valid signature fails to verify (the measurement would be of nothing).
 */
export function measureVerifyRate(
  cases: readonly VerifyCase[],
  minMs = 1000,
  binding = loadSecp256k1Binding(),
): number {
  if (cases.length === 0) throw new Error('no signatures to verify');
  return roundRobinRate(cases, minMs, (c) => {
    if (!binding.ecdsaVerify(c.signature, c.hash, c.publicKey)) {
      throw new Error('libsecp256k1 rejected a valid signature');
    }
  });
}

/** Runs `one` over the cases round-robin for at least `minMs`; calls per second. */
function roundRobinRate<T>(cases: readonly T[], minMs: number, one: (c: T) => void): number {
  let done = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (const c of cases) one(c);
    done += cases.length;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return (done / elapsed) * 1000;
}

export interface SignCase {
  hash: Uint8Array;
  privateKey: Uint8Array;
}

/** `count` (hash, private key) pairs over distinct random keys and hashes. */
export function makeSignCases(count: number, binding = loadSecp256k1Binding()): SignCase[] {
  const cases: SignCase[] = [];
  while (cases.length < count) {
    const privateKey = randomBytes(32);
    if (binding.privateKeyVerify(privateKey)) cases.push({ hash: randomBytes(32), privateKey });
  }
  return cases;
}

/**
 * Signs the cases round-robin on this thread for at least `minMs` and returns signatures per
 * second: the ceiling of a write that signs with a key the node holds (sendTo). Throws if a
 * signature is not 64 bytes (the measurement would be of nothing).
 */
export function measureSignRate(
  cases: readonly SignCase[],
  minMs = 1000,
  binding = loadSecp256k1Binding(),
): number {
  if (cases.length === 0) throw new Error('no hashes to sign');
  return roundRobinRate(cases, minMs, (c) => {
    if (binding.ecdsaSign(c.hash, c.privateKey).signature.length !== 64) {
      throw new Error('libsecp256k1 made no 64-byte signature');
    }
  });
}
