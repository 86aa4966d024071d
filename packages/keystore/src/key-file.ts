import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import {
  bytesToHex,
  concatBytes,
  equalBytes,
  getPublicKey,
  hexToBytes,
  isValidPrivateKey,
  keccak256,
} from '@chain/crypto';
import { KeyStoreError } from './errors';
import { ethereumAddressOf, normalizeEthereumAddress } from './ethereum-address';
import {
  DERIVED_KEY_LENGTH,
  deriveKey,
  KDF_LIMITS,
  type KdfParams,
  type ScryptParams,
  scryptParamsProblem,
} from './kdf';

const CIPHER = 'aes-128-ctr';
const IV_LENGTH = 16;
const SALT_LENGTH = 32;
const MAC_LENGTH = 32;
const PRIVATE_KEY_LENGTH = 32;
const MAX_SALT_LENGTH = 1024;

/** The extension field this node adds: the key's identity on this chain, readable without a passphrase. */
export interface ChainKeyField {
  address: string;
  publicKey: string;
}

/** A v3 key file as this package writes it. */
export interface KeyFileJson {
  version: 3;
  id: string;
  address: string;
  crypto: {
    cipher: typeof CIPHER;
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; r: number; p: number; salt: string };
    mac: string;
  };
  chain: ChainKeyField;
}

/** A v3 key file after validation, with everything needed to check a passphrase. */
export interface ParsedKeyFile {
  /** The file's JSON object as read, kept so a rewrite preserves other tools' fields. */
  json: Record<string, unknown>;
  /** 40 lowercase hex characters, or null when the file does not say. */
  ethAddress: string | null;
  /** The `chain` extension, null for files made by other tools. */
  chain: { address: string; publicKey: Uint8Array } | null;
  kdf: KdfParams;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  mac: Uint8Array;
}

/**
 * Validates an untrusted JSON value as a Web3 Secret Storage v3 file holding a secp256k1 key.
 * Field names inside `crypto` are strict; the `crypto` key itself is matched case-insensitively
 * because ethers writes `Crypto`. Throws INVALID_KEY_FILE naming the first problem.
 */
export function parseKeyFile(json: unknown): ParsedKeyFile {
  const file = asObject(json, 'key file');
  if (file.version !== 3 && file.version !== '3') invalid('version is not 3');
  const cryptoKey = Object.keys(file).find((key) => key.toLowerCase() === 'crypto');
  const crypto = asObject(cryptoKey === undefined ? undefined : file[cryptoKey], 'crypto');
  if (crypto.cipher !== CIPHER) invalid(`cipher is not ${CIPHER}`);
  const iv = hexField(
    asObject(crypto.cipherparams, 'cipherparams').iv,
    'cipherparams.iv',
    IV_LENGTH,
  );
  const ciphertext = hexField(crypto.ciphertext, 'ciphertext', PRIVATE_KEY_LENGTH);
  const mac = hexField(crypto.mac, 'mac', MAC_LENGTH);
  const kdf = parseKdf(crypto.kdf, asObject(crypto.kdfparams, 'kdfparams'));

  let ethAddress: string | null = null;
  if (file.address !== undefined && file.address !== null) {
    ethAddress = normalizeEthereumAddress(file.address);
    if (ethAddress === null) invalid('address is not 40 hex characters');
  }
  const chain = file.chain === undefined ? null : parseChainField(file.chain);
  if (chain !== null) {
    // Decompressing the point (OpenSSL) is also the check that it is one.
    const derived = ethereumAddressOfPoint(chain.publicKey);
    if (ethAddress !== null && ethAddress !== derived) {
      invalid('address does not match chain.publicKey');
    }
    ethAddress = derived;
  }
  return { json: file, ethAddress, chain, kdf, iv, ciphertext, mac };
}

/**
 * Encrypts a private key into a new v3 file (fresh salt, IV and UUID). The passphrase is
 * NFKC-normalised first, as ethers does, so the file opens in ethers with the same string.
 */
export async function encryptKeyFile(
  privateKey: Uint8Array,
  passphrase: string,
  scrypt: ScryptParams,
  chainAddress: string,
): Promise<KeyFileJson> {
  const salt = randomBytes(SALT_LENGTH);
  const derivedKey = await deriveScryptKey(passphrase, salt, scrypt);
  try {
    return sealKeyFile(privateKey, derivedKey, { salt, ...scrypt }, chainAddress);
  } finally {
    derivedKey.fill(0);
  }
}

/** scrypt of the NFKC-normalised passphrase: the key a v3 file of these parameters is sealed with. */
export function deriveScryptKey(
  passphrase: string,
  salt: Uint8Array,
  scrypt: ScryptParams,
): Promise<Uint8Array> {
  return deriveKey(utf8(passphrase.normalize('NFKC')), { kdf: 'scrypt', salt, ...scrypt });
}

/**
 * A v3 file of `privateKey` (fresh IV and UUID) sealed with a key derived already from `kdf`: what
 * encryptKeyFile does after its derivation. The benchmark's fixtures seal a million files under
 * one derivation (same passphrase and salt), each still a file that costs a whole scrypt to open.
 */
export function sealKeyFile(
  privateKey: Uint8Array,
  derivedKey: Uint8Array,
  kdf: ScryptParams & { salt: Uint8Array },
  chainAddress: string,
  /** The key's compressed public key, when the caller has it already. */
  publicKey: Uint8Array = getPublicKey(privateKey),
): KeyFileJson {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv(CIPHER, derivedKey.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  return {
    version: 3,
    id: randomUUID(),
    address: ethereumAddressOf(publicKey),
    crypto: {
      cipher: CIPHER,
      cipherparams: { iv: bytesToHex(iv) },
      ciphertext: bytesToHex(ciphertext),
      kdf: 'scrypt',
      kdfparams: {
        dklen: DERIVED_KEY_LENGTH,
        n: kdf.N,
        r: kdf.r,
        p: kdf.p,
        salt: bytesToHex(kdf.salt),
      },
      mac: bytesToHex(macOf(derivedKey, ciphertext)),
    },
    chain: { address: chainAddress, publicKey: bytesToHex(publicKey) },
  };
}

/**
 * The private key in a file, or null when the passphrase is wrong (the MAC, compared in constant
 * time, does not match; nothing is decrypted then). Throws INVALID_KEY_FILE when the MAC matches
 * but the content is not the key the file claims to hold.
 *
 * Passphrases are tried NFKC-normalised (ethers) and, when that differs, as given (geth and
 * others hash the raw UTF-8), so files from either family open with the string their user typed.
 */
export async function decryptKeyFile(
  file: ParsedKeyFile,
  passphrase: string,
): Promise<Uint8Array | null> {
  for (const candidate of passphraseEncodings(passphrase)) {
    const derivedKey = await deriveKey(candidate, file.kdf);
    try {
      if (!timingSafeEqual(macOf(derivedKey, file.ciphertext), file.mac)) continue;
      const decipher = createDecipheriv(CIPHER, derivedKey.subarray(0, 16), file.iv);
      const plain = Buffer.concat([decipher.update(file.ciphertext), decipher.final()]);
      const privateKey = new Uint8Array(plain);
      plain.fill(0);
      checkIdentity(file, privateKey);
      return privateKey;
    } finally {
      derivedKey.fill(0);
    }
  }
  return null;
}

function checkIdentity(file: ParsedKeyFile, privateKey: Uint8Array): void {
  if (!isValidPrivateKey(privateKey)) {
    privateKey.fill(0);
    invalid('decrypted content is not a secp256k1 private key');
  }
  const publicKey = getPublicKey(privateKey);
  const matches =
    file.chain !== null
      ? equalBytes(publicKey, file.chain.publicKey)
      : file.ethAddress === null || file.ethAddress === ethereumAddressOf(publicKey);
  if (!matches) {
    privateKey.fill(0);
    invalid('decrypted key does not match the address in the file');
  }
}

function passphraseEncodings(passphrase: string): Uint8Array[] {
  const normalized = passphrase.normalize('NFKC');
  return normalized === passphrase ? [utf8(passphrase)] : [utf8(normalized), utf8(passphrase)];
}

function macOf(derivedKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return keccak256(concatBytes(derivedKey.subarray(16, 32), ciphertext));
}

function parseKdf(kdf: unknown, params: Record<string, unknown>): KdfParams {
  const name = typeof kdf === 'string' ? kdf.toLowerCase() : kdf;
  if (integerField(params.dklen, 'kdfparams.dklen') !== DERIVED_KEY_LENGTH) {
    invalid(`kdfparams.dklen is not ${DERIVED_KEY_LENGTH}`);
  }
  const salt = hexField(params.salt, 'kdfparams.salt');
  if (salt.length === 0 || salt.length > MAX_SALT_LENGTH) invalid('kdfparams.salt length');
  if (name === 'scrypt') {
    const scrypt = {
      N: integerField(params.n, 'kdfparams.n'),
      r: integerField(params.r, 'kdfparams.r'),
      p: integerField(params.p, 'kdfparams.p'),
    };
    const problem = scryptParamsProblem(scrypt);
    if (problem !== null) invalid(problem);
    return { kdf: 'scrypt', salt, ...scrypt };
  }
  if (name === 'pbkdf2') {
    const c = integerField(params.c, 'kdfparams.c');
    if (c < 1 || c > KDF_LIMITS.maxPbkdf2Iterations) invalid('kdfparams.c out of range');
    const prf = params.prf;
    if (prf !== 'hmac-sha256' && prf !== 'hmac-sha512') {
      invalid('kdfparams.prf is not hmac-sha256 or hmac-sha512');
    }
    return { kdf: 'pbkdf2', salt, c, prf };
  }
  return invalid('kdf is not scrypt or pbkdf2');
}

function parseChainField(value: unknown): { address: string; publicKey: Uint8Array } {
  const chain = asObject(value, 'chain');
  if (typeof chain.address !== 'string') invalid('chain.address is not a string');
  const publicKey = hexField(chain.publicKey, 'chain.publicKey', 33);
  // Whether the bytes are a point is checked once, by decompressing them (ethereumAddressOfPoint).
  if (publicKey[0] !== 2 && publicKey[0] !== 3) {
    invalid('chain.publicKey is not a compressed secp256k1 key');
  }
  return { address: chain.address, publicKey };
}

/** The Ethereum-style address of a compressed point; INVALID_KEY_FILE for bytes that are none. */
function ethereumAddressOfPoint(publicKey: Uint8Array): string {
  try {
    return ethereumAddressOf(publicKey);
  } catch {
    return invalid('chain.publicKey is not a compressed secp256k1 key');
  }
}

function asObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalid(`${name} is not an object`);
  }
  return value as Record<string, unknown>;
}

const HEX_PATTERN = /^(?:0x)?(?:[0-9a-fA-F]{2})*$/;

function hexField(value: unknown, name: string, length?: number): Uint8Array {
  if (typeof value !== 'string' || !HEX_PATTERN.test(value)) invalid(`${name} is not hex`);
  const bytes = hexToBytes(value);
  if (length !== undefined && bytes.length !== length) invalid(`${name} is not ${length} bytes`);
  return bytes;
}

/** Integers as JSON numbers or, as ethers tolerates, decimal strings. */
function integerField(value: unknown, name: string): number {
  const number = typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) {
    invalid(`${name} is not an integer`);
  }
  return number;
}

function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

function invalid(problem: string): never {
  throw new KeyStoreError('INVALID_KEY_FILE', `invalid key file: ${problem}`);
}
