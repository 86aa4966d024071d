import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@chain/crypto';
import { LEDGER_REASONS } from '@chain/spec';
import { describe, expect, it } from 'vitest';
import { blameOf, DecodeError, LEDGER_BLAME, LedgerError, StoreError } from './errors';

/**
 * Reasons the chain's block import passes to `invalidBlock` (code INVALID_BLOCK) that the spec gives
 * another code, where the same reason is raised outside a block. They go when the chain's
 * `invalidBlock` takes a typed reason (packages/ledger/src/chain/chain-records.ts).
 */
const BLOCK_REASONS_WITH_ANOTHER_CODE = ['DUPLICATE_OPERATION', 'NOT_A_PRODUCER', 'RECENT_SIGNER'];

describe('ledger reasons', () => {
  it('gives every reason of the spec a blame', () => {
    for (const reason of Object.keys(LEDGER_REASONS)) {
      expect(LEDGER_BLAME, reason).toHaveProperty(reason);
    }
  });

  it("excuses the sender only for where a block stands or this node's own condition", () => {
    expect(blameOf('NOT_NEXT_BLOCK')).toBe('none');
    expect(blameOf('WRONG_PARENT')).toBe('none');
    expect(blameOf('BAD_STATE_ROOT')).toBe('sender');
    expect(blameOf('SOMETHING_NEW')).toBe('sender');
    expect(blameOf('toString')).toBe('sender');
  });

  it('builds errors that keep their class, code and reason', () => {
    const error = new StoreError(ErrorCode.NOT_ALLOWED, 'DATADIR_IN_USE', 'in use');
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.name).toBe('StoreError');
    expect(new DecodeError('TRUNCATED', 'short')).toMatchObject({
      name: 'DecodeError',
      code: ErrorCode.INVALID_DATA,
      reason: 'TRUNCATED',
    });
  });

  it('checks the reasons the chain modules pass to invalidBlock as strings', () => {
    const dir = join(import.meta.dirname, 'chain');
    const used = new Set<string>();
    for (const file of readdirSync(dir, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      for (const match of text.matchAll(/invalidBlock\(\s*'([A-Z0-9_]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(10);
    for (const reason of used) {
      expect(LEDGER_REASONS, reason).toHaveProperty(reason);
      if (BLOCK_REASONS_WITH_ANOTHER_CODE.includes(reason)) continue;
      expect(LEDGER_REASONS[reason as keyof typeof LEDGER_REASONS], reason).toBe('INVALID_BLOCK');
    }
  });
});
