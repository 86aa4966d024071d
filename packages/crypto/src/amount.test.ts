import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COIN_DECIMALS, formatUnits, MAX_AMOUNT, parseUnits } from './amount';
import { CryptoError, ErrorCode } from './errors';

const MAX = 2n ** 256n - 1n;

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CryptoError);
    expect((error as CryptoError).code).toBe(ErrorCode.INVALID_AMOUNT);
    return (error as CryptoError).reason;
  }
}

describe('parseUnits', () => {
  it('native coins have 18 decimals', () => {
    expect(COIN_DECIMALS).toBe(18);
    expect(MAX_AMOUNT).toBe(MAX);
  });

  // Hand-computed: value = whole * 10^decimals + fraction padded to `decimals` digits.
  it.each([
    ['0', 18, 0n],
    ['1', 18, 1_000_000_000_000_000_000n],
    ['1.5', 18, 1_500_000_000_000_000_000n],
    ['0.000000000000000001', 18, 1n],
    ['123.456', 4, 1_234_560n],
    ['007.10', 2, 710n],
    ['42', 0, 42n],
    ['1.50', 1, 15n], // trailing zeros beyond `decimals` add no precision
    ['2.000', 0, 2n],
  ])('parses %j with %i decimals to %s', (text, decimals, expected) => {
    expect(parseUnits(text, decimals)).toBe(expected);
  });

  it('accepts the largest amount and refuses one more', () => {
    expect(parseUnits(MAX.toString(), 0)).toBe(MAX);
    expect(reasonOf(() => parseUnits((MAX + 1n).toString(), 0))).toBe('AMOUNT_TOO_LARGE');
    const whole = MAX / 10n ** 18n;
    const fraction = (MAX % 10n ** 18n).toString().padStart(18, '0');
    expect(parseUnits(`${whole}.${fraction}`, 18)).toBe(MAX);
    expect(reasonOf(() => parseUnits(`${whole + 1n}`, 18))).toBe('AMOUNT_TOO_LARGE');
    expect(reasonOf(() => parseUnits('9'.repeat(100_000), 18))).toBe('AMOUNT_TOO_LARGE');
    // Leading zeros do not count towards size.
    expect(parseUnits(`${'0'.repeat(200)}1`, 18)).toBe(10n ** 18n);
  });

  it.each([
    '',
    '-1',
    '+1',
    '1e18',
    '1E3',
    ' 1',
    '1 ',
    '1,000',
    '1_000',
    '.5',
    '5.',
    '1.2.3',
    '0x10',
    'NaN',
    'Infinity',
    '١',
  ])('refuses %j as INVALID_AMOUNT', (text) => {
    expect(reasonOf(() => parseUnits(text, 18))).toBe('INVALID_AMOUNT');
  });

  it('refuses non-strings', () => {
    expect(reasonOf(() => parseUnits(5 as unknown as string, 18))).toBe('INVALID_AMOUNT');
    expect(reasonOf(() => parseUnits(5n as unknown as string, 18))).toBe('INVALID_AMOUNT');
  });

  it('refuses more significant fraction digits than allowed as TOO_PRECISE', () => {
    expect(reasonOf(() => parseUnits('0.0000000000000000001', 18))).toBe('TOO_PRECISE');
    expect(reasonOf(() => parseUnits('1.5', 0))).toBe('TOO_PRECISE');
    expect(reasonOf(() => parseUnits('1.001', 2))).toBe('TOO_PRECISE');
  });

  it('names the param in the error', () => {
    try {
      parseUnits('-1', 18, 'amount');
      expect.unreachable();
    } catch (error) {
      expect((error as CryptoError).param).toBe('amount');
      expect((error as CryptoError).message).toContain("'amount'");
    }
  });

  it('refuses a bad decimals argument', () => {
    expect(() => parseUnits('1', -1)).toThrow(RangeError);
    expect(() => parseUnits('1', 1.5)).toThrow(RangeError);
    expect(() => formatUnits(1n, 78)).toThrow(RangeError);
  });
});

describe('formatUnits', () => {
  it.each([
    [0n, 18, '0.000000000000000000'],
    [1n, 18, '0.000000000000000001'],
    [1_500_000_000_000_000_000n, 18, '1.500000000000000000'],
    [1_000_000n, 4, '100.0000'],
    [42n, 0, '42'],
    [5n, 2, '0.05'],
    [-150n, 2, '-1.50'],
  ])('formats %s with %i decimals as %j', (value, decimals, expected) => {
    expect(formatUnits(value, decimals)).toBe(expected);
  });

  it('round trips with parseUnits for every amount and precision', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: MAX }),
        fc.integer({ min: 0, max: 30 }),
        (value, decimals) => {
          const text = formatUnits(value, decimals);
          expect(parseUnits(text, decimals)).toBe(value);
        },
      ),
    );
  });

  it('parse then format is the canonical form of the input', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{0,20}$/),
        fc.stringMatching(/^\d{0,18}$/),
        (whole, fraction) => {
          const text = fraction === '' ? whole : `${whole}.${fraction}`;
          expect(formatUnits(parseUnits(text, 18), 18)).toBe(
            `${whole}.${fraction.padEnd(18, '0')}`,
          );
        },
      ),
    );
  });
});
