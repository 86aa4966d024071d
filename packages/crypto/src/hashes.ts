import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

/**
 * The hashes the hot paths need, as an interface so Node can plug in node:crypto
 * (`nativeHashes` from `@chain/crypto/native`) while browsers keep the pure implementation.
 */
export interface Hashes {
  sha256(data: Uint8Array): Uint8Array;
  ripemd160(data: Uint8Array): Uint8Array;
  /** BLAKE3 (hash mode) read to `outputLength` bytes: the state root's element vectors. */
  blake3(data: Uint8Array, outputLength: number): Uint8Array;
}

export const pureHashes: Hashes = {
  sha256: (data) => nobleSha256(data),
  ripemd160: (data) => nobleRipemd160(data),
  blake3: (data, outputLength) => nobleBlake3(data, { dkLen: outputLength }),
};

export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return nobleRipemd160(data);
}

/** RIPEMD160(SHA256(data)), Bitcoin's HASH160: the 20-byte hash inside every address. */
export function hash160(data: Uint8Array, hashes: Hashes = pureHashes): Uint8Array {
  return hashes.ripemd160(hashes.sha256(data));
}

/** Keccak-256 (the pre-standard SHA-3 variant used by Ethereum and Web3 Secret Storage MACs). */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}
