import { ChainError, formatUnits, parseUnits } from '@chain/crypto';
import { TokenError, tokenRule } from './errors';
import { checkDecimal } from './rules';

/**
 * A request amount of whole tokens ("12.5") in base units of a token with `decimal` fraction
 * digits. More fraction digits than the token has is INVALID_AMOUNT (1034) / TOO_PRECISE, as for
 * the native coin: one answer for a too precise amount, whatever the asset (docs/decisions.md).
 */
export function parseTokenAmount(text: string, decimal: number, param = 'amount'): bigint {
  checkDecimal(decimal);
  try {
    return parseUnits(text, decimal, param);
  } catch (error) {
    if (error instanceof ChainError && error.reason === 'TOO_PRECISE') {
      throw new TokenError(
        'TOO_PRECISE',
        `'${param}' has more than ${decimal} fraction digits, the token's decimal`,
        { param },
      );
    }
    throw error;
  }
}

/**
 * createToken's `totalAmount`: a positive whole number of tokens, in base units. A fraction (other
 * than zeros) is refused with TOTAL_AMOUNT_NOT_WHOLE; zero with TOTAL_AMOUNT_NOT_POSITIVE.
 */
export function parseTotalAmount(text: string, decimal: number, param = 'totalAmount'): bigint {
  checkDecimal(decimal);
  let whole: bigint;
  try {
    whole = parseUnits(text, 0, param);
  } catch (error) {
    if (error instanceof ChainError && error.reason === 'TOO_PRECISE') {
      throw tokenRule(
        'TOTAL_AMOUNT_NOT_WHOLE',
        `'${param}' must be a whole number of tokens`,
        param,
      );
    }
    throw error;
  }
  if (whole === 0n) {
    throw tokenRule('TOTAL_AMOUNT_NOT_POSITIVE', `'${param}' must be at least 1`, param);
  }
  return parseUnits(text, decimal, param);
}

/** Base units as whole tokens with exactly `decimal` fraction digits ("100.0000"). */
export function formatTokenAmount(amount: bigint, decimal: number): string {
  return formatUnits(amount, decimal);
}
