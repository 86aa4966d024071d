import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';

/** An operation or block refused by the ledger's rules. */
export class LedgerError extends ChainError {}

/** Bytes that do not decode as the format they claim to be. */
export class DecodeError extends LedgerError {
  constructor(reason: string, message: string, options: ChainErrorOptions = {}) {
    super(ErrorCode.INVALID_DATA, reason, message, options);
  }
}

/** A problem with the data directory or its contents (in use, other genesis, corrupt). */
export class StoreError extends LedgerError {}

export function ledgerError(
  code: number,
  reason: string,
  message: string,
  param?: string,
): LedgerError {
  return new LedgerError(code, reason, message, param === undefined ? {} : { param });
}
