/**
 * Writes a range of key files for keystore-fixture.ts, in a child process (several run side by
 * side): args `<dir> <first index> <count> <addresses file>`. Each file is our format at the dev
 * network's scrypt cost, sealed under one derivation per child (same passphrase and salt: a file
 * still costs a whole scrypt to open, but writing a million takes minutes, not hours).
 */
import { createECDH, randomBytes } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addressFromPublicKey, randomPrivateKey } from '@chain/crypto';
import { deriveScryptKey, keyFileName, sealKeyFile } from '@chain/keystore';
import {
  FIXTURE_BASE_TIME_NS,
  FIXTURE_PASSPHRASE,
  FIXTURE_PREFIX,
  FIXTURE_SCRYPT,
} from './keystore-fixture-format.js';

const [dir, firstText, countText, addressesFile] = process.argv.slice(2);
const first = Number(firstText);
const count = Number(countText);
if (dir === undefined || addressesFile === undefined || !Number.isSafeInteger(first + count)) {
  throw new Error('usage: keystore-fixture-worker <dir> <first> <count> <addresses file>');
}

const salt = randomBytes(32);
const derivedKey = await deriveScryptKey(FIXTURE_PASSPHRASE, salt, FIXTURE_SCRYPT);
const kdf = { salt, ...FIXTURE_SCRYPT };
let lines: string[] = [];
for (let i = first; i < first + count; i++) {
  const privateKey = randomPrivateKey();
  // OpenSSL's secp256k1: some 30 times faster than the pure-JS one, which a million keys feel.
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  const publicKey = new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
  const address = addressFromPublicKey(FIXTURE_PREFIX, publicKey);
  const json = sealKeyFile(privateKey, derivedKey, kdf, address, publicKey);
  privateKey.fill(0);
  // One microsecond apart: the names sort in index order, as the files of one node would.
  const name = keyFileName(FIXTURE_BASE_TIME_NS + BigInt(i) * 1_000n, address);
  await writeFile(join(dir, name), JSON.stringify(json), { mode: 0o600 });
  lines.push(address);
  if (lines.length === 10_000) {
    await appendFile(addressesFile, `${lines.join('\n')}\n`);
    lines = [];
  }
}
if (lines.length > 0) await appendFile(addressesFile, `${lines.join('\n')}\n`);
process.send?.({ done: count });
