import { describe, expect, it } from 'vitest';
import { DOMAIN_ERROR_CODES } from './error-codes.js';
import {
  DOMAIN_ERROR_REASONS,
  KEYSTORE_REASONS,
  LEDGER_REASONS,
  NODE_REASONS,
  PARTICIPATION_REASONS,
  reasonsByCode,
  TOKEN_REASONS,
} from './error-reasons.js';

describe('DOMAIN_ERROR_REASONS', () => {
  it('gives a reason raised by two packages the same code', () => {
    const seen = new Map<string, string>();
    for (const table of [
      LEDGER_REASONS,
      TOKEN_REASONS,
      PARTICIPATION_REASONS,
      KEYSTORE_REASONS,
      NODE_REASONS,
    ]) {
      for (const [reason, name] of Object.entries(table)) {
        expect(seen.get(reason) ?? name, reason).toBe(name);
        seen.set(reason, name);
      }
    }
    expect(Object.keys(DOMAIN_ERROR_REASONS).sort()).toEqual([...seen.keys()].sort());
  });

  it('names reasons in UPPER_SNAKE and codes of the domain table', () => {
    for (const [reason, name] of Object.entries(DOMAIN_ERROR_REASONS)) {
      expect(reason).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(DOMAIN_ERROR_CODES[name], reason).toBeGreaterThan(1000);
    }
  });

  it('lists the reasons of each code', () => {
    const byCode = reasonsByCode();
    expect(byCode.get(DOMAIN_ERROR_CODES.INVALID_BLOCK)).toContain('NOT_NEXT_BLOCK');
    expect(byCode.get(DOMAIN_ERROR_CODES.INVALID_ACCOUNT)).toContain('RECEIVER_IS_TOKEN');
    expect(byCode.get(DOMAIN_ERROR_CODES.TOKEN_RULE)).not.toContain('RECEIVER_IS_TOKEN');
  });
});
