import type { SignedMessage } from '@chain/spec';
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
import { CryptoError, ErrorCode } from './errors';
import { hash160, sha256 } from './hashes';
import { decodePublicKey, encodePublicKey } from './key-encoding';
import { getPublicKey } from './keys';
import { recoverPublicKey, recoveryIdOf, signRecoverable } from './secp256k1';

/** The signed message object of signMessage/verifyMessage, as the wire contract defines it. */
export type { SignedMessage };

export const MESSAGE_PREFIX = 'Chain Signed Message:\n';
export const MESSAGE_VERSION = 1;

/** SHA256(SHA256(prefix || CompactSize(len) || msg)), Bitcoin's signed-message construction. */
export function messageHash(msg: string): Uint8Array {
  const body = utf8ToBytes(msg);
  return sha256(sha256(concatBytes(utf8ToBytes(MESSAGE_PREFIX), compactSize(body.length), body)));
}

/** An unpaired UTF-16 surrogate: UTF-8 cannot hold it (it would be signed as U+FFFD). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Where `text` holds an unpaired UTF-16 surrogate, or -1 when it is well-formed Unicode. Such text
 * has no UTF-8 form: encoding it replaces the surrogate with U+FFFD, so a signature of it would
 * also be one of every other text that differs only there.
 */
export function unpairedSurrogateIndex(text: string): number {
  return UNPAIRED_SURROGATE.exec(text)?.index ?? -1;
}

function notWellFormed(param: string, index: number): CryptoError {
  return new CryptoError(
    ErrorCode.INVALID_DATA,
    'INVALID_SIGNED_MESSAGE',
    `'${param}' must be well-formed Unicode text: it holds an unpaired UTF-16 surrogate at index ${index}, which cannot be signed as written`,
    { param },
  );
}

/**
 * Signs `msg` exactly as given: text with an unpaired surrogate is refused (naming `param`), so a
 * signature always means "this exact text was signed".
 */
export function signMessage(
  msg: string,
  privateKey: Uint8Array,
  prefix: string,
  param = 'message',
): SignedMessage {
  const unpaired = unpairedSurrogateIndex(msg);
  if (unpaired >= 0) throw notWellFormed(param, unpaired);
  const publicKey = getPublicKey(privateKey);
  return {
    wallet: addressFromPublicKey(prefix, publicKey),
    msg,
    enc: encodePublicKey(publicKey),
    sig: bytesToHex(signRecoverable(messageHash(msg), privateKey)),
    version: MESSAGE_VERSION,
  };
}

/** A signed message object whose every field has the right form (not yet verified). */
export interface DecodedSignedMessage {
  /** The wallet's 20-byte hash. */
  walletHash: Uint8Array;
  msg: string;
  /** The 33-byte compressed key of `enc`. */
  publicKey: Uint8Array;
  /** 65 bytes: recovery id (0-3; 27-30 and 31-34 are read too) || r || s. */
  signature: Uint8Array;
}

const SIGNED_MESSAGE_FIELDS = ['wallet', 'msg', 'enc', 'sig', 'version'] as const;
const SIGNATURE_HEX_LENGTH = 130;

/**
 * Checks the form of a signed message object field by field, as signMessage writes it, and throws
 * a CryptoError naming the first malformed field (`data.sig` when `param` is `data`): a missing
 * field, a wrong JSON type, a `wallet` that is not an address of this network (1002, as every
 * address param), an `enc` that is not a public key (1005), a `sig` that is not 65 bytes of hex
 * with a recovery id 0-3 (or 27-34, Bitcoin's header forms), or a `version` other than MESSAGE_VERSION (1016 INVALID_SIGNED_MESSAGE).
 */
export function decodeSignedMessage(
  data: unknown,
  expectedPrefix?: string,
  param = 'data',
): DecodedSignedMessage {
  const fail = (field: string | null, why: string): never => {
    const name = field === null ? param : `${param}.${field}`;
    throw new CryptoError(ErrorCode.INVALID_DATA, 'INVALID_SIGNED_MESSAGE', `'${name}' ${why}`, {
      param: name,
    });
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fail(null, `must be a signed message object {${SIGNED_MESSAGE_FIELDS.join(', ')}}`);
  }
  const fields = data as Record<string, unknown>;
  for (const name of SIGNED_MESSAGE_FIELDS) {
    if (fields[name] === undefined || fields[name] === null) fail(name, 'is missing');
  }
  const { wallet, msg, enc, sig, version } = fields;
  if (typeof wallet !== 'string') fail('wallet', 'must be a string (a wallet address)');
  const { hash160: walletHash } = decodeAddress(
    wallet as string,
    expectedPrefix,
    `${param}.wallet`,
  );
  if (typeof msg !== 'string') fail('msg', 'must be a string');
  const unpaired = unpairedSurrogateIndex(msg as string);
  if (unpaired >= 0) throw notWellFormed(`${param}.msg`, unpaired);
  if (typeof enc !== 'string') fail('enc', 'must be a string (an encoded public key)');
  const publicKey = decodePublicKey(enc as string, `${param}.enc`);
  if (typeof sig !== 'string' || !isHex(sig) || sig.length !== SIGNATURE_HEX_LENGTH) {
    fail('sig', `must be ${SIGNATURE_HEX_LENGTH} hex characters (recovery id, r, s)`);
  }
  const signature = hexToBytes(sig as string);
  if (recoveryIdOf(signature[0]!) === null) {
    fail(
      'sig',
      'has no recovery id in its first byte (0-3, or 27-30 / 31-34 as Bitcoin writes it)',
    );
  }
  if (version !== MESSAGE_VERSION && version !== String(MESSAGE_VERSION)) {
    fail('version', `must be ${MESSAGE_VERSION} (the only version of signed messages)`);
  }
  return { walletHash, msg: msg as string, publicKey, signature };
}

/**
 * True when `enc` is a key whose address is `wallet` and `sig` is a valid low-S recoverable
 * signature of `msg` by that key, false when any of that does not hold. A malformed object is not
 * an answer: decodeSignedMessage's error, naming the field.
 */
export function verifyMessage(data: unknown, expectedPrefix?: string, param = 'data'): boolean {
  const { walletHash, msg, publicKey, signature } = decodeSignedMessage(
    data,
    expectedPrefix,
    param,
  );
  if (!equalBytes(hash160(publicKey), walletHash)) return false;
  const recovered = recoverPublicKey(signature, messageHash(msg));
  return recovered !== null && equalBytes(recovered, publicKey);
}

/** Bitcoin's CompactSize unsigned integer. */
function compactSize(length: number): Uint8Array {
  if (length < 0xfd) return Uint8Array.of(length);
  if (length <= 0xffff) return concatBytes(Uint8Array.of(0xfd), u16le(length));
  if (length <= 0xffffffff) return concatBytes(Uint8Array.of(0xfe), u32le(length));
  return concatBytes(Uint8Array.of(0xff), u64le(BigInt(length)));
}
