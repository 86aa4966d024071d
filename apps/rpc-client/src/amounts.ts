/**
 * Exact conversions between decimal text and base units (bigint). No floating point anywhere:
 * `parseCoins('0.1')` is exactly 10^17.
 */
import { AmountError } from './errors.js';

/** Decimal places of the native coin. */
export const COIN_DECIMALS = 18;

const DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?$/;

function assertDecimals(decimals: number): void {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new AmountError(
      'INVALID_DECIMALS',
      `decimals must be an integer from 0 to 255, got ${decimals}`,
    );
  }
}

/**
 * Base units of a non-negative decimal amount: `parseUnits('1.5', 4) === 15000n`.
 * Accepts whole units with an optional fraction of at most `decimals` digits; refuses signs,
 * exponents, separators, surrounding spaces and excess precision (never rounds).
 */
export function parseUnits(text: string, decimals: number): bigint {
  assertDecimals(decimals);
  const match = typeof text === 'string' ? DECIMAL_TEXT.exec(text) : null;
  if (match === null) {
    throw new AmountError(
      'INVALID_AMOUNT',
      `not a decimal amount: ${JSON.stringify(text)} (expected digits with an optional .fraction)`,
    );
  }
  const [, whole, fraction = ''] = match;
  if (fraction.length > decimals) {
    throw new AmountError(
      'TOO_MANY_DECIMALS',
      `${text} has ${fraction.length} decimal places; at most ${decimals} are allowed`,
    );
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/**
 * Decimal text of an amount in base units, without trailing fraction zeros:
 * `formatUnits(15000n, 4) === '1.5'`, `formatUnits(10000n, 4) === '1'`. Negative values keep their sign.
 */
export function formatUnits(value: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (typeof value !== 'bigint') {
    throw new AmountError('INVALID_AMOUNT', `amount must be a bigint, got ${typeof value}`);
  }
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/** Base units (18 decimals) of a native coin amount: `parseCoins('1.5') === 1500000000000000000n`. */
export function parseCoins(text: string): bigint {
  return parseUnits(text, COIN_DECIMALS);
}

/** Decimal text of a native coin amount in base units: `formatCoins(1500000000000000000n) === '1.5'`. */
export function formatCoins(value: bigint): string {
  return formatUnits(value, COIN_DECIMALS);
}
