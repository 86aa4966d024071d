import { createCipheriv, pbkdf2, randomBytes, randomUUID, scrypt } from 'node:crypto';
import { addressFromPublicKey, bytesToHex, getPublicKey, keccak256 } from '@chain/crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * A Web3 Secret Storage v3 key file written the way the specification says (scrypt, aes-128-ctr,
 * keccak-256 MAC over derived key bytes 16-31 and the ciphertext), with the node's `chain` field, at
 * any scrypt cost: the dev network writes light files, this makes standard-cost ones for tests.
 */
export async function makeKeyFile(
  privateKey: Uint8Array,
  passphrase: string,
  cost: ScryptCost,
  prefix = 'CH',
): Promise<{ address: string; json: string }> {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      Buffer.from(passphrase.normalize('NFKC'), 'utf8'),
      salt,
      32,
      { ...cost, maxmem: 128 * cost.r * (cost.N + cost.p + 2) + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]));
  const publicKey = getPublicKey(privateKey);
  const address = addressFromPublicKey(prefix, publicKey);
  const json = {
    version: 3,
    id: randomUUID(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n: cost.N, r: cost.r, p: cost.p, salt: salt.toString('hex') },
      mac: bytesToHex(mac),
    },
    chain: { address, publicKey: bytesToHex(publicKey) },
  };
  return { address, json: JSON.stringify(json) };
}

/**
 * A plain v3 key file with the PBKDF2 KDF, as the Web3 Secret Storage definition specifies it and
 * as other wallets write it: `version`, `id`, `crypto`, no `address` and no chain field.
 * PBKDF2-HMAC-SHA256 derives 32 bytes; AES-128-CTR under the first 16 encrypts the key; the MAC is
 * keccak-256 over derived bytes 16-31 and the ciphertext.
 */
export async function makePbkdf2KeyFile(
  privateKey: Uint8Array,
  passphrase: string,
  iterations = 262_144,
): Promise<string> {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(Buffer.from(passphrase, 'utf8'), salt, iterations, 32, 'sha256', (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]));
  return JSON.stringify({
    version: 3,
    id: randomUUID(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'pbkdf2',
      kdfparams: { c: iterations, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
      mac: bytesToHex(mac),
    },
  });
}
