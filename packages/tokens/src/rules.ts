import { tokenRule } from './errors';
import {
  MAX_TOKEN_DECIMAL,
  MAX_TOKEN_NAME_LENGTH,
  MAX_TOKEN_SUMMARY_LENGTH,
  MAX_TOKEN_SYMBOL_LENGTH,
} from './limits';

/** decimal: an integer 0..18 (DECIMAL_OUT_OF_RANGE). */
export function checkDecimal(decimal: number, param = 'decimal'): void {
  if (!Number.isInteger(decimal) || decimal < 0 || decimal > MAX_TOKEN_DECIMAL) {
    throw tokenRule(
      'DECIMAL_OUT_OF_RANGE',
      `'${param}' must be an integer from 0 to ${MAX_TOKEN_DECIMAL}, got ${String(decimal)}`,
      param,
    );
  }
}

/** Characters of a text as the limits count them: Unicode code points (an emoji is one). */
function textLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A name, symbol or summary: not blank (`<FIELD>_EMPTY`) and at most `maxLength` characters,
 * counted in Unicode code points (`<FIELD>_TOO_LONG`).
 */
function checkText(text: string, field: 'name' | 'symbol' | 'summary', maxLength: number): void {
  const upper = field.toUpperCase() as Uppercase<typeof field>;
  if (text.trim().length === 0) {
    throw tokenRule(`${upper}_EMPTY` as const, `the token ${field} must not be empty`, field);
  }
  // UTF-16 units are never fewer than code points: count them only past the limit.
  const length = text.length > maxLength ? textLength(text) : text.length;
  if (length > maxLength) {
    throw tokenRule(
      `${upper}_TOO_LONG` as const,
      `the token ${field} is ${length} characters long, at most ${maxLength} allowed`,
      field,
    );
  }
}

export function checkMetadata(meta: { name: string; symbol: string; summary: string }): void {
  checkText(meta.name, 'name', MAX_TOKEN_NAME_LENGTH);
  checkText(meta.symbol, 'symbol', MAX_TOKEN_SYMBOL_LENGTH);
  checkText(meta.summary, 'summary', MAX_TOKEN_SUMMARY_LENGTH);
}
