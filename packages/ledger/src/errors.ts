import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';
import type {
  Blame,
  CodeOfReason,
  LEDGER_REASONS,
  PARTICIPATION_REASONS,
  ReasonsCoded,
  TOKEN_REASONS,
} from '@chain/spec';

/**
 * The reason only the example plug-in of the ledger's tests raises (chain/extension.test.ts); it goes
 * when that test throws an error class of its own.
 */
const EXAMPLE_PLUGIN_REASONS = { NOT_YOUR_NOTE: 'NOT_ALLOWED' } as const;

type ReasonTable = typeof LEDGER_REASONS & typeof EXAMPLE_PLUGIN_REASONS;

/** Every reason a LedgerError carries (@chain/spec's LEDGER_REASONS, with their codes). */
export type LedgerReason = keyof ReasonTable;

export type { Blame };

/**
 * Why a block is refused (INVALID_BLOCK): the import's reasons (@chain/spec's BLOCK_IMPORT_REASONS),
 * and those of a branch, a rollback or a block asked for.
 */
export type InvalidBlockReason = ReasonsCoded<ReasonTable, 'INVALID_BLOCK'>;

/** The blame of every ledger reason (their codes are @chain/spec's LEDGER_REASONS). */
export const LEDGER_BLAME = {
  MALFORMED_BLOCK: 'sender',
  NOT_NEXT_BLOCK: 'none',
  WRONG_PARENT: 'none',
  TIMESTAMP_TOO_EARLY: 'sender',
  TIMESTAMP_IN_FUTURE: 'none',
  BLOCK_BY_NON_PRODUCER: 'sender',
  BLOCK_BY_RECENT_SIGNER: 'sender',
  BAD_BLOCK_SIGNATURE: 'sender',
  TOO_MANY_OPERATIONS: 'sender',
  BAD_OPERATION: 'sender',
  DUPLICATE_OPERATION_IN_BLOCK: 'sender',
  BAD_OPERATION_SIGNATURE: 'sender',
  BAD_OPERATIONS_ROOT: 'sender',
  INVALID_OPERATION_IN_BLOCK: 'sender',
  BAD_STATE_ROOT: 'sender',
  WRONG_PRODUCER_SET: 'sender',
  BAD_FORK_POINT: 'none',
  BAD_ROLLBACK: 'none',
  ROLLBACK_TOO_DEEP: 'none',
  BLOCK_NOT_FOUND: 'none',
  BEFORE_HISTORY: 'none',
  NOT_A_PRODUCER: 'none',
  RECENT_SIGNER: 'none',
  UNKNOWN_OPTYPE: 'sender',
  ALREADY_ACTIVE: 'sender',
  UNKNOWN_ACCOUNT: 'sender',
  UNKNOWN_RECEIVER: 'sender',
  ACCOUNT_EXISTS: 'sender',
  SELF_TRANSFER: 'sender',
  RECEIVER_IS_TOKEN: 'sender',
  INACTIVE_ACCOUNT: 'sender',
  INSUFFICIENT_FUNDS: 'sender',
  INVALID_N_OPERATION: 'sender',
  KEY_NOT_OF_ACCOUNT: 'sender',
  SIGNATURE_MISMATCH: 'sender',
  BAD_PUBLIC_KEY: 'sender',
  BAD_AMOUNT: 'sender',
  FEE_TOO_LOW: 'none',
  ZERO_FEE_USED: 'none',
  DUPLICATE_OPERATION: 'none',
  MEMPOOL_FULL: 'none',
  NEW_ACCOUNTS_FULL: 'none',
  BAD_AMOUNT_ENCODING: 'sender',
  BAD_CURSOR: 'sender',
  BAD_BODY: 'sender',
  BAD_SNAPSHOT: 'sender',
  BAD_COUNT: 'sender',
  BAD_GENESIS: 'sender',
  BAD_OPTYPE: 'sender',
  BAD_PAYLOAD_TYPE: 'sender',
  BAD_RECEIVER: 'sender',
  BAD_SIGNATURE: 'sender',
  BAD_SPACE_NAME: 'sender',
  BAD_SUBTYPE: 'sender',
  BAD_UTF8: 'sender',
  OUT_OF_RANGE: 'sender',
  PAYLOAD_TOO_LONG: 'sender',
  TOO_LONG: 'sender',
  TRAILING_BYTES: 'sender',
  TRUNCATED: 'sender',
  CHAIN_CLOSED: 'none',
  CORRUPT_DATADIR: 'none',
  DATADIR_IN_USE: 'none',
  DATADIR_NOT_EMPTY: 'none',
  RESTORE_INTERRUPTED: 'none',
  DATADIR_TOO_NEW: 'none',
  DATADIR_TOO_OLD: 'none',
  DATADIR_UNUSABLE: 'none',
  GENESIS_MISMATCH: 'none',
  STORE_FAILED: 'none',
  DUPLICATE_OPTYPE: 'none',
  DUPLICATE_SPACE: 'none',
  REGISTRY_SEALED: 'none',
  UNREGISTERED_SPACE: 'none',
  NOT_YOUR_NOTE: 'sender',
} as const satisfies Record<LedgerReason, Blame>;

/**
 * Whose fault a ledger refusal is: its reason's LEDGER_BLAME; a plug-in codec's INVALID_DATA reason
 * (bytes that do not decode) is the sender's.
 */
export function blameOf(reason: LedgerReason | DataReason): Blame {
  return Object.hasOwn(LEDGER_BLAME, reason) ? LEDGER_BLAME[reason as LedgerReason] : 'sender';
}

/** The ledger's own reasons answered with INVALID_DATA. */
export type LedgerDataReason = {
  [R in LedgerReason]: ReasonTable[R] extends 'INVALID_DATA' ? R : never;
}[LedgerReason];

type DecodeTable = ReasonTable & typeof TOKEN_REASONS & typeof PARTICIPATION_REASONS;

/**
 * The reasons answered with INVALID_DATA: the ones a DecodeError carries (the ledger's, and those of
 * the plug-ins' codecs, which decode with the ledger's reader).
 */
export type DataReason = {
  [R in keyof DecodeTable]: DecodeTable[R] extends 'INVALID_DATA' ? R : never;
}[keyof DecodeTable];

/** The code of a ledger reason. */
export type LedgerCodeOf<R extends LedgerReason> = CodeOfReason<ReasonTable, R> & number;

/**
 * The constructor of a ledger error: the reason must be one of LedgerReason and come with its code
 * (a reason that is not in @chain/spec's LEDGER_REASONS, or another code, does not compile).
 */
export interface LedgerErrorConstructor<E> {
  new <R extends LedgerReason>(
    code: LedgerCodeOf<R>,
    reason: R,
    message: string,
    options?: ChainErrorOptions,
  ): E;
  readonly prototype: E;
}

const LedgerErrorClass = class LedgerError extends ChainError {
  /** A ledger reason, or a plug-in codec's INVALID_DATA one (a DecodeError of its reader). */
  declare readonly reason: LedgerReason | DataReason;
};
const StoreErrorClass = class StoreError extends LedgerErrorClass {};

/** An operation or block refused by the ledger's rules. */
export type LedgerError = InstanceType<typeof LedgerErrorClass>;
export const LedgerError = LedgerErrorClass as LedgerErrorConstructor<LedgerError>;

/** A problem with the data directory or its contents (in use, other genesis, corrupt). */
export type StoreError = InstanceType<typeof StoreErrorClass>;
export const StoreError = StoreErrorClass as LedgerErrorConstructor<StoreError>;

/** Bytes that do not decode as the format they claim to be. */
export class DecodeError extends LedgerErrorClass {
  declare readonly reason: DataReason;

  constructor(reason: DataReason, message: string, options: ChainErrorOptions = {}) {
    super(ErrorCode.INVALID_DATA, reason, message, options);
  }
}
