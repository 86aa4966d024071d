import { ECDH } from 'node:crypto';
import { bytesToHex, keccak256 } from '@chain/crypto';

/**
 * The Ethereum-style address other v3 tools expect in a key file's `address` field: the last 20
 * bytes of keccak256 over the 64-byte uncompressed public key (without its 0x04 tag), as 40
 * lowercase hex characters without `0x`. Throws on a byte string that is not a curve point.
 */
export function ethereumAddressOf(publicKey33: Uint8Array): string {
  const uncompressed = ECDH.convertKey(
    publicKey33,
    'secp256k1',
    undefined,
    undefined,
    'uncompressed',
  ) as Buffer;
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12));
}

const ETHEREUM_ADDRESS_PATTERN = /^(?:0x)?[0-9a-fA-F]{40}$/;

/** 40 lowercase hex characters, or null for anything that is not an Ethereum-style address. */
export function normalizeEthereumAddress(address: unknown): string | null {
  if (typeof address !== 'string' || !ETHEREUM_ADDRESS_PATTERN.test(address)) return null;
  return address.slice(address.length - 40).toLowerCase();
}
