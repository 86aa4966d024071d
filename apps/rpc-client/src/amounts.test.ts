import { formatUnits as ethersFormatUnits, parseUnits as ethersParseUnits } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCoins, formatUnits, parseCoins, parseUnits } from './amounts.js';
import { AmountError } from './errors.js';

// Hand-computed: 1.5 coins = 15 * 10^17 base units; one base unit = 10^-18 coin.
const ONE_AND_A_HALF_COINS = 15n * 10n ** 17n;

describe('parseCoins / formatCoins', () => {
  it('converts exactly, with 18 decimals', () => {
    expect(parseCoins('1.5')).toBe(ONE_AND_A_HALF_COINS);
    expect(parseCoins('1.5')).toBe(1500000000000000000n);
    expect(parseCoins('100')).toBe(10n ** 20n); // SPEC rule 4: 100 coins = 1 followed by 20 zeros
    expect(parseCoins('0.000000000000000001')).toBe(1n);
    expect(parseCoins('0.1') + parseCoins('0.2')).toBe(parseCoins('0.3'));
    expect(formatCoins(ONE_AND_A_HALF_COINS)).toBe('1.5');
    expect(formatCoins(10n ** 20n)).toBe('100');
    expect(formatCoins(1n)).toBe('0.000000000000000001');
    expect(formatCoins(0n)).toBe('0');
  });

  it('handles amounts far beyond 2^53', () => {
    const text = '123456789012345678901234567890.123456789012345678';
    expect(parseCoins(text)).toBe(123456789012345678901234567890123456789012345678n);
    expect(formatCoins(parseCoins(text))).toBe(text);
  });
});

describe('parseUnits', () => {
  it('uses the given number of decimals', () => {
    expect(parseUnits('100', 4)).toBe(1_000_000n); // SPEC rule 4: 100 tokens of decimal 4
    expect(parseUnits('1.25', 2)).toBe(125n);
    expect(parseUnits('7', 0)).toBe(7n);
    expect(parseUnits('007.50', 3)).toBe(7500n);
  });

  it.each([
    ['', 'INVALID_AMOUNT'],
    ['-1', 'INVALID_AMOUNT'],
    ['+1', 'INVALID_AMOUNT'],
    ['1e18', 'INVALID_AMOUNT'],
    ['1.', 'INVALID_AMOUNT'],
    ['.5', 'INVALID_AMOUNT'],
    [' 1', 'INVALID_AMOUNT'],
    ['1,5', 'INVALID_AMOUNT'],
    ['0x10', 'INVALID_AMOUNT'],
    ['١', 'INVALID_AMOUNT'], // Arabic-Indic digit one: \d must not mean Unicode digits
    ['1.0000000000000000001', 'TOO_MANY_DECIMALS'],
  ])('refuses %j (%s)', (text, reason) => {
    expect(() => parseCoins(text)).toThrow(AmountError);
    expect(() => parseCoins(text)).toThrow(expect.objectContaining({ reason }));
  });

  it('refuses more fraction digits than decimals instead of rounding', () => {
    expect(() => parseUnits('1.25', 1)).toThrow(/2 decimal places; at most 1/);
    expect(() => parseUnits('1.5', 0)).toThrow(
      expect.objectContaining({ reason: 'TOO_MANY_DECIMALS' }),
    );
  });

  it('refuses impossible decimals', () => {
    for (const decimals of [-1, 1.5, 256, Number.NaN]) {
      expect(() => parseUnits('1', decimals)).toThrow(
        expect.objectContaining({ reason: 'INVALID_DECIMALS' }),
      );
      expect(() => formatUnits(1n, decimals)).toThrow(
        expect.objectContaining({ reason: 'INVALID_DECIMALS' }),
      );
    }
  });
});

describe('formatUnits', () => {
  it('drops trailing fraction zeros and keeps the sign', () => {
    expect(formatUnits(1_000_000n, 4)).toBe('100');
    expect(formatUnits(1_234_500n, 4)).toBe('123.45');
    expect(formatUnits(5n, 3)).toBe('0.005');
    expect(formatUnits(-15n, 1)).toBe('-1.5');
    expect(formatUnits(42n, 0)).toBe('42');
  });
});

describe('against ethers (an independent implementation)', () => {
  const decimals = fc.integer({ min: 0, max: 30 });
  const value = fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n });

  it('formats like ethers, without its ".0" on whole numbers', () => {
    fc.assert(
      fc.property(value, decimals, (v, d) => {
        expect(formatUnits(v, d)).toBe(ethersFormatUnits(v, d).replace(/\.0$/, ''));
      }),
    );
  });

  it('parses like ethers and round-trips every value', () => {
    fc.assert(
      fc.property(value, decimals, (v, d) => {
        const nonNegative = v < 0n ? -v : v;
        const text = formatUnits(nonNegative, d);
        expect(parseUnits(text, d)).toBe(nonNegative);
        expect(parseUnits(text, d)).toBe(ethersParseUnits(text, d));
      }),
    );
  });

  it('parses padded fractions like ethers', () => {
    const text = fc
      .tuple(fc.stringMatching(/^\d{1,25}$/), fc.stringMatching(/^\d{1,18}$/))
      .map(([whole, fraction]) => `${whole}.${fraction}`);
    fc.assert(
      fc.property(text, (t) => {
        expect(parseCoins(t)).toBe(ethersParseUnits(t, 18));
      }),
    );
  });
});
