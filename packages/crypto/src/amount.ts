import { CryptoError, ErrorCode } from './errors';

/** Fraction digits of the native coin: 1 coin = 10^18 base units. */
export const COIN_DECIMALS = 18;
/** Amounts are encoded in at most 32 bytes. */
export const MAX_AMOUNT = (1n << 256n) - 1n;
const MAX_DECIMALS = 77;

const AMOUNT_PATTERN = /^(\d+)(?:\.(\d+))?$/;

/**
 * Whole units with an optional fraction ("1.5") to base units. No sign, exponent, spaces or
 * thousands separators. The fraction may have more than `decimals` digits only if the extra ones
 * are zeros ("1.50" with 1 decimal), since they add no precision.
 */
export function parseUnits(text: string, decimals: number, param?: string): bigint {
  assertDecimals(decimals);
  const what = param === undefined ? 'amount' : `'${param}'`;
  const match = typeof text === 'string' ? AMOUNT_PATTERN.exec(text) : null;
  if (match === null) {
    throw new CryptoError(
      ErrorCode.INVALID_AMOUNT,
      'INVALID_AMOUNT',
      `${what} must be a decimal number of whole units with an optional fraction, like "12.5" (no sign, exponent or spaces)`,
      { param },
    );
  }
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  let fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    if (/[^0]/.test(fraction.slice(decimals))) {
      throw new CryptoError(
        ErrorCode.INVALID_AMOUNT,
        'TOO_PRECISE',
        `${what} has more than ${decimals} fraction digits`,
        { param },
      );
    }
    fraction = fraction.slice(0, decimals);
  }
  // 2^256 - 1 has 78 digits: refuse longer input before building a huge bigint.
  const tooLarge = (): never => {
    throw new CryptoError(
      ErrorCode.INVALID_AMOUNT,
      'AMOUNT_TOO_LARGE',
      `${what} exceeds the largest amount (2^256 - 1 base units)`,
      { param },
    );
  };
  if (whole.length + decimals > 79) return tooLarge();
  const value = BigInt(whole + fraction.padEnd(decimals, '0'));
  if (value > MAX_AMOUNT) return tooLarge();
  return value;
}

/** Base units to a decimal string with exactly `decimals` fraction digits ("100.0000"). */
export function formatUnits(value: bigint, decimals: number): string {
  assertDecimals(decimals);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const sign = negative ? '-' : '';
  if (decimals === 0) return sign + digits;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`decimals must be an integer in [0, ${MAX_DECIMALS}]`);
  }
}
