/**
 * The ceiling for anything that checks signatures: libsecp256k1's ECDSA verify rate on one thread,
 * called through the `secp256k1` npm package's native binding exactly as the node's verifier
 * threads call it, with nothing else around it.
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
  let done = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (const c of cases) {
      if (!binding.ecdsaVerify(c.signature, c.hash, c.publicKey)) {
        throw new Error('libsecp256k1 rejected a valid signature');
      }
    }
    done += cases.length;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return (done / elapsed) * 1000;
}
