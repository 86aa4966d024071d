import { blameOf, ErrorCode, LedgerError } from '@chain/ledger';

/** A block a peer sent that the chain refused as invalid: the sender misbehaved. */
interface InvalidBlockFault {
  readonly code: number;
  readonly text: string;
}

/**
 * The peer's fault in a failed import: the chain's own INVALID_BLOCK error (a LedgerError) whose
 * reason the ledger blames on the sender (`blameOf`: not one that says where the block stands
 * against this chain). Anything else (the chain moved, a store error) is no fault.
 */
export function blockFault(error: unknown): InvalidBlockFault | undefined {
  if (!(error instanceof LedgerError) || error.code !== ErrorCode.INVALID_BLOCK) return undefined;
  if (blameOf(error.reason) !== 'sender') return undefined;
  return { code: error.code, text: errorText(error) };
}

/** The chain's reason and message of an error, for a log or a ban. */
export function errorText(error: unknown): string {
  const e = error as { reason?: unknown; message?: unknown };
  return `${typeof e?.reason === 'string' ? `${e.reason} ` : ''}${String(e?.message ?? error)}`;
}
