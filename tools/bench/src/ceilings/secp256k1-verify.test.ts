import { getPublicKey, randomPrivateKey, sha256, utf8ToBytes } from '@chain/crypto';
import { nativeSecp256k1 } from '@chain/crypto/native';
import { describe, expect, it } from 'vitest';
import {
  loadSecp256k1Binding,
  makeSignCases,
  makeVerifyCases,
  measureSignRate,
  measureVerifyRate,
} from './secp256k1-verify.js';

describe('libsecp256k1 verify ceiling', () => {
  it('makes valid cases that @chain/crypto verifies too, over distinct keys', () => {
    const cases = makeVerifyCases(20);

    expect(cases.every((c) => nativeSecp256k1.verify(c.signature, c.hash, c.publicKey))).toBe(true);
    expect(new Set(cases.map((c) => Buffer.from(c.publicKey).toString('hex'))).size).toBe(20);
  });

  it('loads the native binding, which verifies what @chain/crypto signs', () => {
    const privateKey = randomPrivateKey();
    const hash = sha256(utf8ToBytes('ceiling'));
    const signature = nativeSecp256k1.sign(hash, privateKey);

    expect(loadSecp256k1Binding().ecdsaVerify(signature, hash, getPublicKey(privateKey))).toBe(
      true,
    );
  });

  it('measures verifies per second for at least the given time, and refuses invalid cases', () => {
    const cases = makeVerifyCases(50);
    const started = performance.now();

    const rate = measureVerifyRate(cases, 100);

    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    // Any machine this runs on verifies far more than 100 signatures per second natively.
    expect(rate).toBeGreaterThan(100);
    const bad = { ...cases[0]!, hash: sha256(utf8ToBytes('another message')) };
    expect(() => measureVerifyRate([bad], 10)).toThrow('rejected a valid signature');
  });

  it('makes sign cases over distinct valid keys whose signatures verify, and measures a sign rate', () => {
    const cases = makeSignCases(20);
    const binding = loadSecp256k1Binding();

    expect(new Set(cases.map((c) => Buffer.from(c.privateKey).toString('hex'))).size).toBe(20);
    for (const c of cases) {
      const { signature } = binding.ecdsaSign(c.hash, c.privateKey);
      expect(binding.ecdsaVerify(signature, c.hash, getPublicKey(c.privateKey))).toBe(true);
    }
    // Any machine this runs on signs far more than 100 hashes per second natively.
    expect(measureSignRate(cases, 50)).toBeGreaterThan(100);
    expect(() => measureSignRate([])).toThrow('no hashes to sign');
  });
});
