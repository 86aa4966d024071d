import { ChainError } from '@chain/crypto';
import { ByteReader, type OperationType } from '@chain/ledger';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_METHODS, type AdminTokenBody } from './operation/admin-token';
import { tokenOperationTypes } from './register';
import { type HolderState, holderSpace, type TokenState, tokenSpace } from './state';

const hash = fc.uint8Array({ minLength: 20, maxLength: 20 });
const amount = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.string({ maxLength: 80, unit: 'grapheme' });

const createBody = fc.record({
  advanced: fc.boolean(),
  decimal: fc.integer({ min: 0, max: 255 }),
  supply: amount,
  name: text,
  symbol: text,
  summary: text,
});
const sendBody = fc.record({
  token: hash,
  receiver: hash,
  amount,
  payloadType: fc.integer({ min: 0, max: 255 }),
  payload: fc.uint8Array({ maxLength: 255 }),
});

/** The fields each admin method carries (see admin-token.ts), as arbitraries. */
const adminBodies: Record<(typeof ADMIN_TOKEN_METHODS)[number], fc.Arbitrary<AdminTokenBody>> = {
  transferEnabled: fc.record({ token: hash, select: fc.boolean() }),
  transferWalletEnabled: fc.record({ token: hash, receiver: hash, select: fc.boolean() }),
  lockWalletVolume: fc.record({ token: hash, receiver: hash, amount, lockBlocks: u32 }),
  burnWalletVolume: fc.record({ token: hash, receiver: hash, amount }),
  mintWalletVolume: fc.record({ token: hash, receiver: hash, amount }),
  ownershipWallet: fc.record({ token: hash, receiver: hash }),
};

function bodyArbitrary(type: OperationType<unknown>): fc.Arbitrary<unknown> {
  if (type.optype === 6) return createBody;
  if (type.subtype === 0) return sendBody;
  return adminBodies[ADMIN_TOKEN_METHODS[type.subtype - 1]!];
}

function roundTrip(type: OperationType<unknown>, body: unknown): unknown {
  const reader = new ByteReader(type.encodeBody(body));
  const decoded = type.decodeBody(reader);
  reader.end('body');
  return decoded;
}

describe('operation body codecs', () => {
  it.each(tokenOperationTypes.map((t) => [t.name, t] as const))(
    '%s round-trips every body',
    (_name, type) => {
      fc.assert(
        fc.property(bodyArbitrary(type), (body) => {
          expect(roundTrip(type, body)).toEqual(body);
        }),
        { numRuns: 200 },
      );
    },
  );

  it.each(tokenOperationTypes.map((t) => [t.name, t] as const))(
    '%s decodes arbitrary bytes canonically or throws a ChainError',
    (_name, type) => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
          const reader = new ByteReader(bytes);
          let body: unknown;
          try {
            body = type.decodeBody(reader);
          } catch (error) {
            expect(error).toBeInstanceOf(ChainError);
            return;
          }
          // What decodes re-encodes to the same bytes: one body, one encoding (one digest).
          expect(type.encodeBody(body)).toEqual(bytes.subarray(0, reader.offset));
        }),
        { numRuns: 500 },
      );
    },
  );

  it('refuses to encode a body that lacks a field its method needs', () => {
    const lock = tokenOperationTypes.find((t) => t.name === 'adminToken.lockWalletVolume')!;
    expect(() => lock.encodeBody({ token: new Uint8Array(20), amount: 1n })).toThrow(
      expect.objectContaining({ reason: 'MISSING_FIELD', param: 'receiver' }),
    );
  });
});

describe('state encodings', () => {
  const token: fc.Arbitrary<TokenState> = fc.record({
    issuer: u32,
    owner: u32,
    name: text,
    symbol: text,
    summary: text,
    decimal: fc.integer({ min: 0, max: 18 }),
    supply: amount,
    advanced: fc.boolean(),
    transfer: fc.boolean(),
    holders: u32,
    listed: u32,
    first: u32,
    last: u32,
  });
  const holder: fc.Arbitrary<HolderState> = fc.record({
    balance: amount,
    transfer: fc.boolean(),
    volumeLock: amount,
    timeLock: amount,
    timeLockUntil: u32,
    prev: u32,
    next: u32,
  });

  it('round-trip and are canonical', () => {
    fc.assert(
      fc.property(token, (t) => {
        const bytes = tokenSpace.encode(t);
        expect(tokenSpace.decode(bytes)).toEqual(t);
        expect(tokenSpace.clone(t)).toEqual(t);
      }),
    );
    fc.assert(
      fc.property(holder, (h) => {
        expect(holderSpace.decode(holderSpace.encode(h))).toEqual(h);
      }),
    );
  });

  it('refuse trailing bytes and non-canonical flags', () => {
    const bytes = holderSpace.encode({
      balance: 1n,
      transfer: true,
      volumeLock: 0n,
      timeLock: 0n,
      timeLockUntil: 0,
      prev: 1,
      next: 2,
    });
    expect(() => holderSpace.decode(Uint8Array.of(...bytes, 0))).toThrow(ChainError);
    const flag = bytes.slice();
    flag[2] = 2; // balance is `01 01`, then the transfer flag
    expect(() => holderSpace.decode(flag)).toThrow(expect.objectContaining({ reason: 'BAD_FLAG' }));
  });
});
