import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMAIN_ERROR_CODES } from '@chain/spec';
import { describe, expect, it } from 'vitest';
import * as api from './index';

const SRC = new URL('.', import.meta.url).pathname;

describe('package entry', () => {
  it('the main entry is browser-safe: no Node built-ins or native modules outside native.ts', () => {
    const sources = readdirSync(SRC).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'native.ts',
    );
    expect(sources).toContain('index.ts');
    for (const file of sources) {
      const text = readFileSync(join(SRC, file), 'utf8');
      expect(text, file).not.toMatch(/from '(node:[^']+|secp256k1[^']*|\.\/native)'/);
    }
  });

  it('exports the agreed API', () => {
    const names = [
      'bytesToHex',
      'hexToBytes',
      'concatBytes',
      'equalBytes',
      'utf8ToBytes',
      'pureHashes',
      'sha256',
      'ripemd160',
      'hash160',
      'keccak256',
      'randomPrivateKey',
      'isValidPrivateKey',
      'getPublicKey',
      'pureSecp256k1',
      'signRecoverable',
      'recoverPublicKey',
      'addressFromHash160',
      'addressFromPublicKey',
      'decodeAddress',
      'normalizeAddress',
      'isValidAddress',
      'tokenAddress',
      'encodePrivateKey',
      'decodePrivateKey',
      'encodePublicKey',
      'decodePublicKey',
      'MESSAGE_PREFIX',
      'messageHash',
      'MESSAGE_VERSION',
      'signMessage',
      'verifyMessage',
      'parseUnits',
      'formatUnits',
      'COIN_DECIMALS',
      'ChainError',
      'CryptoError',
      'ErrorCode',
    ];
    for (const name of names) expect(api, name).toHaveProperty(name);
  });

  it("ErrorCode is @chain/spec's domain table itself, not a copy to keep equal", () => {
    expect(api.ErrorCode).toBe(DOMAIN_ERROR_CODES);
  });
});
