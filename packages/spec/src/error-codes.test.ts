import { describe, expect, it } from 'vitest';
import {
  DOMAIN_ERROR_CODES,
  ERROR_CODES,
  PROTOCOL_ERROR_CODES,
  PROTOCOL_ERRORS,
} from './error-codes.js';

describe('ERROR_CODES', () => {
  it('gives every code one name, and no name to two codes', () => {
    const codes = Object.values(ERROR_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toHaveLength(
      Object.keys(PROTOCOL_ERROR_CODES).length + Object.keys(DOMAIN_ERROR_CODES).length,
    );
  });

  it("keeps protocol codes in JSON-RPC 2.0's reserved range and domain codes out of it", () => {
    // JSON-RPC 2.0 reserves -32768..-32000 for the protocol; the node's domain codes are positive.
    for (const code of Object.values(PROTOCOL_ERROR_CODES)) {
      expect(code >= -32768 && code <= -32000, String(code)).toBe(true);
    }
    for (const code of Object.values(DOMAIN_ERROR_CODES)) {
      expect(code > 1000, String(code)).toBe(true);
    }
  });

  it('derives the protocol codes from PROTOCOL_ERRORS, reason for reason', () => {
    expect(Object.keys(PROTOCOL_ERROR_CODES)).toEqual(Object.keys(PROTOCOL_ERRORS));
    for (const [reason, { code, when }] of Object.entries(PROTOCOL_ERRORS)) {
      expect(PROTOCOL_ERROR_CODES[reason as keyof typeof PROTOCOL_ERROR_CODES], reason).toBe(code);
      expect(when, reason).not.toBe('');
    }
    expect(Object.isFrozen(PROTOCOL_ERROR_CODES)).toBe(true);
  });
});
