import { ErrorCode } from '@chain/crypto';
import { BLOCK_IMPORT_REASONS, type BlockImportReason, LEDGER_REASONS } from '@chain/spec';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { invalidBlock } from './chain/chain-records';
import {
  blameOf,
  DecodeError,
  type InvalidBlockReason,
  LEDGER_BLAME,
  LedgerError,
  StoreError,
} from './errors';

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
    expect(blameOf('BAD_NODES')).toBe('sender'); // a plug-in codec's (@chain/tiers)
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

  it('refuses every block-import reason with INVALID_BLOCK and gives it a blame', () => {
    expectTypeOf<BlockImportReason>().toExtend<InvalidBlockReason>();
    for (const reason of Object.keys(BLOCK_IMPORT_REASONS) as BlockImportReason[]) {
      expect(LEDGER_REASONS[reason], reason).toBe('INVALID_BLOCK');
      expect(['sender', 'none'], reason).toContain(LEDGER_BLAME[reason]);
      expect(invalidBlock(reason, 'refused')).toMatchObject({
        code: ErrorCode.INVALID_BLOCK,
        reason,
        param: 'block',
      });
    }
  });

  it('does not compile a reason outside the table or with another code', () => {
    // @ts-expect-error: NOT_A_PRODUCER (this node's production) is answered with NOT_ALLOWED.
    expect(invalidBlock('NOT_A_PRODUCER', 'not ours').code).toBe(ErrorCode.INVALID_BLOCK);
    // @ts-expect-error: not a reason of the table.
    expect(invalidBlock('SOMETHING_NEW', 'new').reason).toBe('SOMETHING_NEW');
    // @ts-expect-error: DUPLICATE_OPERATION has its own code.
    expect(new LedgerError(ErrorCode.INVALID_BLOCK, 'DUPLICATE_OPERATION', 'again').code).toBe(
      ErrorCode.INVALID_BLOCK,
    );
  });

  it('blames the sender of a block that breaks a rule whatever chain it is offered to', () => {
    const reasons = Object.keys(BLOCK_IMPORT_REASONS) as BlockImportReason[];
    const excused = reasons.filter((reason) => blameOf(reason) === 'none');
    expect(excused).toEqual(['NOT_NEXT_BLOCK', 'WRONG_PARENT', 'TIMESTAMP_IN_FUTURE']);
    // Raised by this node's own production or the mempool, never by an import.
    expect(blameOf('NOT_A_PRODUCER')).toBe('none');
    expect(blameOf('DUPLICATE_OPERATION')).toBe('none');
  });
});
