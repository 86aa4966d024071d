import {
  createECDH,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bigintToBytesBEPadded,
  bytesToBigintBE,
  bytesToHex,
  concatBytes,
  hexToBytes,
  utf8ToBytes,
} from './bytes';
import { CryptoError } from './errors';
import { sha256 } from './hashes';
import { getPublicKey } from './keys';
import { fastestSecp256k1, isNativeSecp256k1Available, nativeSecp256k1 } from './native';
import {
  isHighS,
  pureSecp256k1,
  recoverPublicKey,
  type Secp256k1Backend,
  signRecoverable,
} from './secp256k1';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const privateKeyArbitrary = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((scalar) => bigintToBytesBEPadded(scalar, 32));
const hashArbitrary = fc.uint8Array({ minLength: 32, maxLength: 32 });

/**
 * Deterministic ECDSA (RFC 6979, SHA-256) vectors for secp256k1 from bitcointalk topic 285142,
 * reproduced independently by bitcoinj, python-ecdsa and Trezor; `s` is the low-S form and
 * `highS` its malleable twin n - s as published there.
 */
const RFC6979_VECTORS = [
  {
    d: 1n,
    msg: 'Satoshi Nakamoto',
    r: '934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8',
    s: '2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5',
    highS: 'dbbd3162d46e9f9bef7feb87c16dc13b4f6568a87f4e83f728e2443ba586675c',
  },
  {
    d: 1n,
    msg: 'All those moments will be lost in time, like tears in rain. Time to die...',
    r: '8600dbd41e348fe5c9465ab92d23e3db8b98b873beecd930736488696438cb6b',
    s: '547fe64427496db33bf66019dacbf0039c04199abb0122918601db38a72cfc21',
    highS: 'ab8019bbd8b6924cc4099fe625340ffb1eaac34bf4477daa39d0835429094520',
  },
  {
    d: N - 1n,
    msg: 'Satoshi Nakamoto',
    r: 'fd567d121db66e382991534ada77a6bd3106f0a1098c231e47993447cd6af2d0',
    s: '6b39cd0eb1bc8603e159ef5c20a5c8ad685a45b06ce9bebed3f153d10d93bed5',
    highS: '94c632f14e4379fc1ea610a3df5a375152549736425ee17cebe10abbc2a2826c',
  },
  {
    d: 0xf8b8af8ce3c7cca5e300d33939540c10d45ce001b8f252bfbc57ba0342904181n,
    msg: 'Alan Turing',
    r: '7063ae83e7f62bbb171798131b4a0564b956930092b33b07b395615d9ec7e15c',
    s: '58dfcc1e00a35e1572f366ffe34ba0fc47db1e7189759b9fb233c5b05ab388ea',
    highS: 'a72033e1ff5ca1ea8d0c99001cb45f0272d3be7525d3049c0d9e98dc7582b857',
  },
  {
    d: 0xe91671c46231f833a6406ccbea0e3e392c76c167bac1cb013f6f1013980455c2n,
    msg:
      'There is a computer disease that anybody who works with computers knows about.' +
      " It's a very serious disease and it interferes completely with the work." +
      " The trouble with computers is that you 'play' with them!",
    r: 'b552edd27580141f3b2a5463048cb7cd3e047b97c9f98076c32dbdf85a68718b',
    s: '279fa72dd19bfae05577e06c7c0c1900c371fcd5893f7e1d56a37d30174671f6',
    highS: null,
  },
];

const backends: Secp256k1Backend[] = [pureSecp256k1, nativeSecp256k1];

/** OpenSSL key objects for a private key, its public half taken from OpenSSL's own ECDH. */
function openSslKeys(privateKey: Uint8Array): { priv: KeyObject; pub: KeyObject } {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  const point = ecdh.getPublicKey(null, 'uncompressed');
  const jwk = {
    kty: 'EC',
    crv: 'secp256k1',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33).toString('base64url'),
  };
  return {
    priv: createPrivateKey({
      key: { ...jwk, d: Buffer.from(privateKey).toString('base64url') },
      format: 'jwk',
    }),
    pub: createPublicKey({ key: jwk, format: 'jwk' }),
  };
}

function withS(sig64: Uint8Array, s: bigint): Uint8Array {
  return concatBytes(sig64.subarray(0, 32), bigintToBytesBEPadded(s, 32));
}

describe.each(backends.map((b) => [b.name, b] as const))('%s backend', (_name, backend) => {
  it.each(RFC6979_VECTORS)('reproduces the RFC 6979 vector d=$d, $msg', (vector) => {
    const privateKey = bigintToBytesBEPadded(vector.d, 32);
    const hash = sha256(utf8ToBytes(vector.msg));
    const sig = backend.sign(hash, privateKey);
    expect(bytesToHex(sig)).toBe(vector.r + vector.s);
    expect(backend.verify(sig, hash, getPublicKey(privateKey))).toBe(true);
  });

  it.each(RFC6979_VECTORS.filter((v) => v.highS !== null))(
    'rejects the published high-S twin d=$d, $msg, which OpenSSL accepts',
    (vector) => {
      const privateKey = bigintToBytesBEPadded(vector.d, 32);
      const hash = sha256(utf8ToBytes(vector.msg));
      const highSig = hexToBytes(vector.r + vector.highS!);
      expect(isHighS(highSig)).toBe(true);
      // Mathematically valid: OpenSSL (which does not enforce low-S) verifies it.
      const { pub } = openSslKeys(privateKey);
      expect(
        nodeVerify(
          'sha256',
          utf8ToBytes(vector.msg),
          { key: pub, dsaEncoding: 'ieee-p1363' },
          highSig,
        ),
      ).toBe(true);
      expect(backend.verify(highSig, hash, getPublicKey(privateKey))).toBe(false);
    },
  );

  it('signs low-S and verifies its own signatures; the high-S twin of any signature is refused', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, hashArbitrary, (privateKey, hash) => {
        const publicKey = getPublicKey(privateKey);
        const sig = backend.sign(hash, privateKey);
        expect(sig).toHaveLength(64);
        expect(isHighS(sig)).toBe(false);
        expect(backend.verify(sig, hash, publicKey)).toBe(true);
        const twin = withS(sig, N - bytesToBigintBE(sig.subarray(32)));
        expect(backend.verify(twin, hash, publicKey)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it('rejects a signature for another hash, another key, or with any bit flipped', () => {
    fc.assert(
      fc.property(
        privateKeyArbitrary,
        privateKeyArbitrary,
        hashArbitrary,
        fc.nat({ max: 64 * 8 - 1 }),
        (privateKey, otherKey, hash, bit) => {
          fc.pre(bytesToHex(privateKey) !== bytesToHex(otherKey));
          const sig = backend.sign(hash, privateKey);
          const otherHash = hash.slice();
          otherHash[0]! ^= 1;
          expect(backend.verify(sig, otherHash, getPublicKey(privateKey))).toBe(false);
          expect(backend.verify(sig, hash, getPublicKey(otherKey))).toBe(false);
          const flipped = sig.slice();
          flipped[bit >> 3]! ^= 1 << (bit & 7);
          expect(backend.verify(flipped, hash, getPublicKey(privateKey))).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('verify returns false, never throws, on malformed input', () => {
    const privateKey = bigintToBytesBEPadded(7n, 32);
    const hash = sha256(utf8ToBytes('x'));
    const sig = backend.sign(hash, privateKey);
    const pub = getPublicKey(privateKey);
    const ecdh = createECDH('secp256k1');
    ecdh.setPrivateKey(privateKey);
    // The signer's own key in the "hybrid" form (prefix 6 or 7 by parity of y): never accepted.
    const uncompressed = new Uint8Array(ecdh.getPublicKey(null, 'uncompressed'));
    const hybrid = concatBytes(
      Uint8Array.of(6 + (uncompressed[64]! & 1)),
      uncompressed.subarray(1),
    );
    const cases: [unknown, unknown, unknown][] = [
      [sig.subarray(0, 63), hash, pub],
      [concatBytes(sig, Uint8Array.of(0)), hash, pub],
      [sig, hash.subarray(1), pub],
      [sig, hash, pub.subarray(1)],
      [sig, hash, hybrid],
      [sig, hash, uncompressed.subarray(0, 64)],
      [sig, hash, concatBytes(Uint8Array.of(2), new Uint8Array(32))], // x = 0: not on the curve
      [sig, hash, concatBytes(Uint8Array.of(9), pub.subarray(1))], // bad prefix byte
      [new Uint8Array(64), hash, pub], // r = s = 0
      [concatBytes(bigintToBytesBEPadded(N, 32), sig.subarray(32)), hash, pub], // r = n
      [new Uint8Array(64).fill(0xff), hash, pub],
      ['00'.repeat(64), hash, pub],
      [null, hash, pub],
      [sig, undefined, pub],
      [sig, hash, 42],
    ];
    for (const [s, h, p] of cases) {
      expect(backend.verify(s as Uint8Array, h as Uint8Array, p as Uint8Array)).toBe(false);
    }
  });

  it('verifies against the uncompressed form of the key, as expandPublicKey makes it', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, hashArbitrary, (privateKey, hash) => {
        const sig = backend.sign(hash, privateKey);
        const ecdh = createECDH('secp256k1');
        ecdh.setPrivateKey(privateKey);
        const uncompressed = new Uint8Array(ecdh.getPublicKey(null, 'uncompressed'));
        expect(backend.verify(sig, hash, uncompressed)).toBe(true);
        const other = hash.slice();
        other[0]! ^= 1;
        expect(backend.verify(sig, other, uncompressed)).toBe(false);
        if (backend.expandPublicKey !== undefined) {
          expect(backend.expandPublicKey(getPublicKey(privateKey))).toEqual(uncompressed);
        }
      }),
      { numRuns: 20 },
    );
    expect(backend.expandPublicKey?.(concatBytes(Uint8Array.of(2), new Uint8Array(32)))).toBe(
      backend.expandPublicKey === undefined ? undefined : null,
    );
  });

  it('sign refuses a bad key or hash with CryptoError', () => {
    const hash = sha256(utf8ToBytes('x'));
    expect(() => backend.sign(hash, new Uint8Array(32))).toThrow(CryptoError);
    expect(() => backend.sign(hash, bigintToBytesBEPadded(N, 32))).toThrow(CryptoError);
    expect(() => backend.sign(hash.subarray(1), bigintToBytesBEPadded(1n, 32))).toThrow(
      CryptoError,
    );
  });
});

describe('agreement between backends and with OpenSSL', () => {
  it('the native backend is the real libsecp256k1 binding', () => {
    expect(isNativeSecp256k1Available()).toBe(true);
    expect(fastestSecp256k1()).toBe(nativeSecp256k1);
    expect(nativeSecp256k1.name).toBe('libsecp256k1');
  });

  it('pure and native produce identical signatures and verify each other', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, hashArbitrary, (privateKey, hash) => {
        const publicKey = getPublicKey(privateKey);
        const pure = pureSecp256k1.sign(hash, privateKey);
        const native = nativeSecp256k1.sign(hash, privateKey);
        expect(bytesToHex(native)).toBe(bytesToHex(pure));
        expect(nativeSecp256k1.verify(pure, hash, publicKey)).toBe(true);
        expect(pureSecp256k1.verify(native, hash, publicKey)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('OpenSSL verifies our signatures; we verify OpenSSL signatures once normalised to low S', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, fc.uint8Array({ maxLength: 100 }), (privateKey, message) => {
        const { priv, pub } = openSslKeys(privateKey);
        const publicKey = getPublicKey(privateKey);
        const hash = sha256(message);
        for (const backend of backends) {
          const ours = backend.sign(hash, privateKey);
          expect(nodeVerify('sha256', message, { key: pub, dsaEncoding: 'ieee-p1363' }, ours)).toBe(
            true,
          );
        }
        const theirs = new Uint8Array(
          nodeSign('sha256', message, { key: priv, dsaEncoding: 'ieee-p1363' }),
        );
        const s = bytesToBigintBE(theirs.subarray(32));
        const low = withS(theirs, s > N / 2n ? N - s : s);
        for (const backend of backends) {
          expect(backend.verify(low, hash, publicKey)).toBe(true);
          expect(backend.verify(theirs, hash, publicKey)).toBe(s <= N / 2n);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('recoverable signatures', () => {
  it('are recovery id || the deterministic compact signature, and recover the signer', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, hashArbitrary, (privateKey, hash) => {
        const sig = signRecoverable(hash, privateKey);
        expect(sig).toHaveLength(65);
        expect(sig[0]).toBeLessThanOrEqual(3);
        expect(bytesToHex(sig.subarray(1))).toBe(bytesToHex(pureSecp256k1.sign(hash, privateKey)));
        expect(bytesToHex(recoverPublicKey(sig, hash)!)).toBe(bytesToHex(getPublicKey(privateKey)));
      }),
      { numRuns: 40 },
    );
  });

  it('recovery id matches the parity of R: flipping it recovers a different key', () => {
    const privateKey = bigintToBytesBEPadded(1n, 32);
    const hash = sha256(utf8ToBytes(RFC6979_VECTORS[0]!.msg));
    const sig = signRecoverable(hash, privateKey);
    const flipped = sig.slice();
    flipped[0]! ^= 1;
    const other = recoverPublicKey(flipped, hash);
    expect(other === null || bytesToHex(other) !== bytesToHex(getPublicKey(privateKey))).toBe(true);
  });

  it('recover returns null for malformed or high-S input', () => {
    const privateKey = bigintToBytesBEPadded(1n, 32);
    const hash = sha256(utf8ToBytes('x'));
    const sig = signRecoverable(hash, privateKey);
    const high = concatBytes(
      sig.subarray(0, 33),
      bigintToBytesBEPadded(N - bytesToBigintBE(sig.subarray(33)), 32),
    );
    high[0]! ^= 1; // the high-S twin recovers with the other parity
    expect(recoverPublicKey(high, hash)).toBeNull();
    expect(recoverPublicKey(sig.subarray(1), hash)).toBeNull();
    expect(recoverPublicKey(sig, hash.subarray(1))).toBeNull();
    expect(recoverPublicKey(concatBytes(Uint8Array.of(4), sig.subarray(1)), hash)).toBeNull();
    expect(recoverPublicKey(new Uint8Array(65), hash)).toBeNull();
    expect(recoverPublicKey('00' as unknown as Uint8Array, hash)).toBeNull();
  });
});
