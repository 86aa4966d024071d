import { addressFromPublicKey, decodeAddress } from './address';
import {
  bytesToHex,
  concatBytes,
  equalBytes,
  hexToBytes,
  isHex,
  u16le,
  u32le,
  u64le,
  utf8ToBytes,
} from './bytes';
import { hash160, sha256 } from './hashes';
import { decodePublicKey, encodePublicKey } from './key-encoding';
import { getPublicKey } from './keys';
import { recoverPublicKey, signRecoverable } from './secp256k1';

export const MESSAGE_PREFIX = 'Chain Signed Message:\n';
export const MESSAGE_VERSION = 1;

/** signMessage's output and verifyMessage's input (SPEC "Signed message object"). */
export interface SignedMessage {
  wallet: string;
  msg: string;
  /** PascalCoin-encoded public key (140 hex). */
  enc: string;
  /** 65-byte recoverable signature (recovery id || r || s), hex. */
  sig: string;
  version: string | number;
}

/** SHA256(SHA256(prefix || CompactSize(len) || msg)), Bitcoin's signed-message construction. */
export function messageHash(msg: string): Uint8Array {
  const body = utf8ToBytes(msg);
  return sha256(sha256(concatBytes(utf8ToBytes(MESSAGE_PREFIX), compactSize(body.length), body)));
}

export function signMessage(msg: string, privateKey: Uint8Array, prefix: string): SignedMessage {
  const publicKey = getPublicKey(privateKey);
  return {
    wallet: addressFromPublicKey(prefix, publicKey),
    msg,
    enc: encodePublicKey(publicKey),
    sig: bytesToHex(signRecoverable(messageHash(msg), privateKey)),
    version: MESSAGE_VERSION,
  };
}

/**
 * True only when `enc` is a key whose address is `wallet` and `sig` is a valid low-S recoverable
 * signature of `msg` by that key. Any mismatch or malformed field gives false, never an error.
 */
export function verifyMessage(data: unknown, expectedPrefix?: string): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const { wallet, msg, enc, sig, version } = data as Record<string, unknown>;
  if (typeof wallet !== 'string' || typeof msg !== 'string') return false;
  if (typeof enc !== 'string' || typeof sig !== 'string' || !isHex(sig)) return false;
  if (version !== undefined && typeof version !== 'string' && typeof version !== 'number') {
    return false;
  }
  try {
    const { hash160: walletHash } = decodeAddress(wallet, expectedPrefix);
    const publicKey = decodePublicKey(enc);
    if (!equalBytes(hash160(publicKey), walletHash)) return false;
    const recovered = recoverPublicKey(hexToBytes(sig), messageHash(msg));
    return recovered !== null && equalBytes(recovered, publicKey);
  } catch {
    return false;
  }
}

/** Bitcoin's CompactSize unsigned integer. */
function compactSize(length: number): Uint8Array {
  if (length < 0xfd) return Uint8Array.of(length);
  if (length <= 0xffff) return concatBytes(Uint8Array.of(0xfd), u16le(length));
  if (length <= 0xffffffff) return concatBytes(Uint8Array.of(0xfe), u32le(length));
  return concatBytes(Uint8Array.of(0xff), u64le(BigInt(length)));
}
