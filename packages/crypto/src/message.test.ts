import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressFromPublicKey } from './address';
import { bigintToBytesBEPadded, bytesToBigintBE, bytesToHex, hexToBytes } from './bytes';
import { encodePublicKey } from './key-encoding';
import { getPublicKey } from './keys';
import {
  MESSAGE_PREFIX,
  MESSAGE_VERSION,
  messageHash,
  type SignedMessage,
  signMessage,
  verifyMessage,
} from './message';
import { pureSecp256k1 } from './secp256k1';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const privateKeyArbitrary = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((scalar) => bigintToBytesBEPadded(scalar, 32));
const KEY = bigintToBytesBEPadded(0xc0ffeen, 32);
const OTHER_KEY = bigintToBytesBEPadded(0xbeefn, 32);

/** The construction spelled out with OpenSSL: SHA256(SHA256(prefix || CompactSize || msg)). */
function referenceHash(lengthBytes: number[], msg: Buffer): string {
  const once = createHash('sha256')
    .update(
      Buffer.concat([
        Buffer.from('Chain Signed Message:\n', 'utf8'),
        Buffer.from(lengthBytes),
        msg,
      ]),
    )
    .digest();
  return createHash('sha256').update(once).digest('hex');
}

describe('messageHash', () => {
  it('uses the documented prefix', () => {
    expect(MESSAGE_PREFIX).toBe('Chain Signed Message:\n');
  });

  // Bitcoin CompactSize: < 0xfd one byte; then 0xfd + u16le; then 0xfe + u32le.
  it.each([
    [0, [0x00]],
    [5, [0x05]],
    [252, [0xfc]],
    [253, [0xfd, 0xfd, 0x00]],
    [0xffff, [0xfd, 0xff, 0xff]],
    [0x10000, [0xfe, 0x00, 0x00, 0x01, 0x00]],
  ])('prefixes a message of %i bytes with CompactSize %j', (length, lengthBytes) => {
    const msg = 'x'.repeat(length);
    expect(bytesToHex(messageHash(msg))).toBe(referenceHash(lengthBytes, Buffer.from(msg)));
  });

  it('counts UTF-8 bytes, not characters', () => {
    // "héllo" is 6 bytes in UTF-8.
    expect(bytesToHex(messageHash('héllo'))).toBe(referenceHash([6], Buffer.from('héllo', 'utf8')));
  });
});

describe('signMessage / verifyMessage', () => {
  it('signs with the wallet, PascalCoin public key and a 65-byte recoverable signature', () => {
    const signed = signMessage('hello', KEY, 'CH');
    const publicKey = getPublicKey(KEY);
    expect(signed.wallet).toBe(addressFromPublicKey('CH', publicKey));
    expect(signed.msg).toBe('hello');
    expect(signed.enc).toBe(encodePublicKey(publicKey));
    expect(signed.version).toBe(MESSAGE_VERSION);
    expect(signed.sig).toMatch(/^[0-9a-f]{130}$/);
    const sig = hexToBytes(signed.sig);
    expect(sig[0]).toBeLessThanOrEqual(3);
    expect(pureSecp256k1.verify(sig.subarray(1), messageHash('hello'), publicKey)).toBe(true);
  });

  it('round trips for any key and message, also through JSON', () => {
    fc.assert(
      fc.property(
        privateKeyArbitrary,
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        (key, msg) => {
          const signed = signMessage(msg, key, 'CH');
          expect(verifyMessage(signed)).toBe(true);
          expect(verifyMessage(signed, 'CH')).toBe(true);
          expect(verifyMessage(JSON.parse(JSON.stringify(signed)), 'CH')).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses text with an unpaired surrogate, naming message / data.msg: true means this exact text', () => {
    for (const msg of ['\ud800', 'a\udfff', '\ud801b', '\ude00\ud83d']) {
      expect(() => signMessage(msg, KEY, 'CH'), JSON.stringify(msg)).toThrow(
        expect.objectContaining({
          code: 1016,
          param: 'message',
          message: expect.stringContaining('unpaired UTF-16 surrogate'),
        }),
      );
    }
    // A signature of the replacement character is no signature of any lone surrogate.
    const signed = signMessage('\ufffd', KEY, 'CH');
    expect(verifyMessage(signed, 'CH')).toBe(true);
    for (const msg of ['\ud800', '\udfff', '\ud801']) {
      expect(() => verifyMessage({ ...signed, msg }, 'CH')).toThrow(
        expect.objectContaining({ code: 1016, param: 'data.msg' }),
      );
    }
    // A pair is one character and signs as such.
    expect(verifyMessage(signMessage('\ud83d\ude00', KEY, 'CH'), 'CH')).toBe(true);
  });

  it('accepts either hex case in wallet, enc and sig, and a string version', () => {
    const signed = signMessage('case', KEY, 'CH');
    expect(
      verifyMessage({
        wallet: `CH${signed.wallet.slice(2).toUpperCase()}`,
        msg: signed.msg,
        enc: signed.enc.toUpperCase(),
        sig: signed.sig.toUpperCase(),
        version: '1',
      }),
    ).toBe(true);
  });

  it('is false for a tampered msg, sig, wallet or enc', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 50 }),
        fc.nat({ max: 64 }),
        fc.integer({ min: 1, max: 255 }),
        (msg, sigByte, xor) => {
          const signed = signMessage(msg, KEY, 'CH');
          const other = signMessage(msg, OTHER_KEY, 'CH');
          expect(verifyMessage({ ...signed, msg: `${msg} ` })).toBe(false);
          const sig = hexToBytes(signed.sig);
          // r and s take any value; the recovery id (byte 0) stays in its range 0-3.
          sig[sigByte]! ^= sigByte === 0 ? 1 + (xor % 3) : xor;
          expect(verifyMessage({ ...signed, sig: bytesToHex(sig) })).toBe(false);
          expect(verifyMessage({ ...signed, wallet: other.wallet })).toBe(false);
          expect(verifyMessage({ ...signed, enc: other.enc })).toBe(false);
          // A consistent wallet and enc of another key, with this key's signature.
          expect(verifyMessage({ ...signed, wallet: other.wallet, enc: other.enc })).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is false for the high-S twin of a valid signature', () => {
    const signed = signMessage('malleable', KEY, 'CH');
    const sig = hexToBytes(signed.sig);
    const highS = bigintToBytesBEPadded(N - bytesToBigintBE(sig.subarray(33)), 32);
    sig.set(highS, 33);
    for (const recovery of [0, 1]) {
      sig[0] = recovery;
      expect(verifyMessage({ ...signed, sig: bytesToHex(sig) })).toBe(false);
    }
  });

  it("accepts Bitcoin's recovery header bytes (27-30, and 31-34 for compressed keys) besides 0-3", () => {
    const signed = signMessage('recovery byte forms', KEY, 'CH');
    const sig = hexToBytes(signed.sig);
    const id = sig[0]!;
    expect(id === 0 || id === 1).toBe(true);
    const withHeader = (byte: number) => {
      const copy = sig.slice();
      copy[0] = byte;
      return { ...signed, sig: bytesToHex(copy) };
    };
    expect(verifyMessage(withHeader(27 + id))).toBe(true);
    expect(verifyMessage(withHeader(31 + id))).toBe(true);
    // The other parity names another key, in every form.
    for (const byte of [id ^ 1, 27 + (id ^ 1), 31 + (id ^ 1)]) {
      expect(verifyMessage(withHeader(byte))).toBe(false);
    }
    // Bytes outside the three ranges are no recovery id at all: a malformed signature.
    for (const byte of [4, 26, 35, 0xff]) {
      expect(() => verifyMessage(withHeader(byte))).toThrow(
        expect.objectContaining({ param: 'data.sig', reason: 'INVALID_SIGNED_MESSAGE' }),
      );
    }
  });

  it('throws on a malformed object, naming the field; false is only for a signature that does not match', () => {
    const signed: SignedMessage = signMessage('fields', KEY, 'CH');
    const sameHashOtherPrefix = `XY${signed.wallet.slice(2)}`;
    const cases: Array<[unknown, string, string]> = [
      [null, 'data', 'INVALID_SIGNED_MESSAGE'],
      ['string', 'data', 'INVALID_SIGNED_MESSAGE'],
      [42, 'data', 'INVALID_SIGNED_MESSAGE'],
      [[], 'data', 'INVALID_SIGNED_MESSAGE'],
      [{}, 'data.wallet', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, wallet: undefined }, 'data.wallet', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, wallet: signed.wallet.slice(1) }, 'data.wallet', 'INVALID_ADDRESS_FORMAT'],
      [{ ...signed, wallet: sameHashOtherPrefix }, 'data.wallet', 'WRONG_NETWORK_PREFIX'],
      [{ ...signed, wallet: 7 }, 'data.wallet', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, msg: 7 }, 'data.msg', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, msg: null }, 'data.msg', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, enc: '' }, 'data.enc', 'INVALID_PUBLIC_KEY'],
      [{ ...signed, enc: signed.enc.slice(2) }, 'data.enc', 'INVALID_PUBLIC_KEY'],
      [{ ...signed, enc: 12 }, 'data.enc', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: signed.sig.slice(2) }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: `${signed.sig}00` }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: `0x${signed.sig}` }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: 'zz'.repeat(65) }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: null }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, sig: `04${signed.sig.slice(2)}` }, 'data.sig', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, version: {} }, 'data.version', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, version: 2 }, 'data.version', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, version: ['1'] }, 'data.version', 'INVALID_SIGNED_MESSAGE'],
      [{ ...signed, version: undefined }, 'data.version', 'INVALID_SIGNED_MESSAGE'],
    ];
    for (const [data, param, reason] of cases) {
      expect(() => verifyMessage(data, 'CH'), JSON.stringify(data)).toThrow(
        expect.objectContaining({ param, reason }),
      );
    }
    expect(() => verifyMessage(signed, 'XY')).toThrow(
      expect.objectContaining({ param: 'data.wallet', reason: 'WRONG_NETWORK_PREFIX' }),
    );
    expect(() => verifyMessage({ ...signed, sig: 'zz' }, 'CH', 'message')).toThrow(
      expect.objectContaining({ param: 'message.sig', code: 1016 }),
    );
    // Well formed, not matching: false. A zero r and s is the form of a signature, not a valid one.
    expect(verifyMessage({ ...signed, sig: `00${'00'.repeat(64)}` }, 'CH')).toBe(false);
    expect(verifyMessage({ ...signed, version: '1' }, 'CH')).toBe(true);
  });
});
