/**
 * Node-only fast paths behind the same interfaces as the pure ones: libsecp256k1 through the
 * `secp256k1` package's native binding, node:crypto's one-shot hashes, hash-wasm's BLAKE3.
 * `secp256k1` is an optional peer dependency (browsers and most SDK users never load it): it is
 * loaded at the first use, and `fastestSecp256k1()` takes the pure implementation without it.
 */
import { hash as nodeHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { createBLAKE3, type IHasher } from 'hash-wasm';
import type * as Secp256k1Native from 'secp256k1';
import { CryptoError, ErrorCode } from './errors';
import { type Hashes, pureHashes } from './hashes';
import { assertPrivateKey } from './keys';
import { LT_HASH_BYTES } from './lthash';
import {
  COMPRESSED_KEY_LENGTH,
  isPublicKeyBytes,
  pureSecp256k1,
  type Secp256k1Backend,
} from './secp256k1';

type NativeBinding = typeof Secp256k1Native;

let binding: NativeBinding | undefined;
let bindingError: unknown;

/**
 * Loads `secp256k1/bindings` directly: the package's main entry silently falls back to a slow
 * pure-JS implementation (elliptic) when the prebuilt binary is missing, which must not happen
 * unnoticed on a node's hot path.
 */
function loadBinding(): NativeBinding {
  if (binding !== undefined) return binding;
  if (bindingError === undefined) {
    try {
      binding = createRequire(import.meta.url)('secp256k1/bindings') as NativeBinding;
      return binding;
    } catch (error) {
      bindingError = error;
    }
  }
  throw new Error(
    'libsecp256k1 native binding (secp256k1/bindings) failed to load: install the secp256k1 package (an optional peer dependency of @chain/crypto) for this platform, or use fastestSecp256k1(), which falls back to the pure implementation',
    { cause: bindingError },
  );
}

/** True when the libsecp256k1 binding loads on this platform. */
export function isNativeSecp256k1Available(): boolean {
  try {
    loadBinding();
    return true;
  } catch {
    return false;
  }
}

export const nativeSecp256k1: Secp256k1Backend = {
  name: 'libsecp256k1',
  sign(hash32, privateKey) {
    if (!(hash32 instanceof Uint8Array) || hash32.length !== 32) {
      throw new CryptoError(
        ErrorCode.INVALID_DATA,
        'INVALID_HASH',
        'message hash must be 32 bytes',
      );
    }
    assertPrivateKey(privateKey);
    // libsecp256k1 signs with RFC 6979 nonces and always emits low-S.
    return Uint8Array.from(loadBinding().ecdsaSign(hash32, privateKey).signature);
  },
  verify(sig64, hash32, publicKey) {
    if (
      !(sig64 instanceof Uint8Array) ||
      sig64.length !== 64 ||
      !(hash32 instanceof Uint8Array) ||
      hash32.length !== 32 ||
      !isPublicKeyBytes(publicKey)
    ) {
      return false;
    }
    const native = loadBinding();
    try {
      // secp256k1_ecdsa_verify rejects high-S signatures by itself.
      return native.ecdsaVerify(sig64, hash32, publicKey);
    } catch {
      // The binding throws on an unparsable signature or public key.
      return false;
    }
  },
  expandPublicKey(publicKey33) {
    if (!(publicKey33 instanceof Uint8Array) || publicKey33.length !== COMPRESSED_KEY_LENGTH) {
      return null;
    }
    try {
      return Uint8Array.from(loadBinding().publicKeyConvert(publicKey33, false));
    } catch {
      return null;
    }
  },
};

/** libsecp256k1 when its binding loads, else the pure implementation (see `name`). */
export function fastestSecp256k1(): Secp256k1Backend {
  return isNativeSecp256k1Available() ? nativeSecp256k1 : pureSecp256k1;
}

/**
 * The digest as a latin1 ('binary') string copied into bytes: node:crypto's 'buffer' output makes a Buffer
 * over memory of its own (and an argument check that takes a slow path), which costs twice the
 * whole string round trip for digests this short, and more work for the collector.
 */
function nodeDigest(algorithm: string, data: Uint8Array): Uint8Array {
  const text = nodeHash(algorithm, data, 'binary');
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function nodeSupports(algorithm: string): boolean {
  try {
    nodeHash(algorithm, new Uint8Array(0), 'buffer');
    return true;
  } catch {
    return false;
  }
}

/**
 * hash-wasm's BLAKE3 (WebAssembly, about 8 times @noble's speed for the state root's 2 KiB
 * elements), one hasher per output length. Its module compiles asynchronously: until it is ready,
 * and if it never is, @noble computes the same bytes.
 */
const blake3Hashers = new Map<number, IHasher | 'pending'>();

function prepareBlake3(outputLength: number): void {
  blake3Hashers.set(outputLength, 'pending');
  createBLAKE3(outputLength * 8).then(
    (hasher) => blake3Hashers.set(outputLength, hasher),
    () => undefined,
  );
}
// The state root's length is ready before the first block is imported.
prepareBlake3(LT_HASH_BYTES);

function nativeBlake3(data: Uint8Array, outputLength: number): Uint8Array {
  const hasher = blake3Hashers.get(outputLength);
  if (hasher === undefined) prepareBlake3(outputLength);
  else if (hasher !== 'pending') return hasher.init().update(data).digest('binary');
  return pureHashes.blake3(data, outputLength);
}

/**
 * node:crypto's one-shot hashes. RIPEMD-160 comes from OpenSSL's legacy set, which some builds
 * disable; then the pure implementation stands in for it.
 */
export const nativeHashes: Hashes = {
  sha256: (data) => nodeDigest('sha256', data),
  ripemd160: nodeSupports('ripemd160')
    ? (data) => nodeDigest('ripemd160', data)
    : (data) => pureHashes.ripemd160(data),
  blake3: nativeBlake3,
};
