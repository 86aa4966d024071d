import { DOMAIN_ERROR_CODES } from './error-codes.js';

/**
 * The reasons (`error.data.reason`) of the domain errors, each with the one code it is answered with
 * (docs/rpc.md lists them by code). A reason has one code wherever it is raised; the packages that
 * raise them type their error classes with these unions (@chain/ledger, @chain/tokens, @chain/tiers,
 * @chain/keystore), so a reason that is not here does not compile there.
 */
export type DomainErrorName = keyof typeof DOMAIN_ERROR_CODES;

/**
 * Whose fault a refusal is. `sender`: the block or operation itself breaks a rule, whoever sends it
 * again; `none`: it says where a block stands against the node's chain, or the node's own condition.
 * Each package that raises reasons gives each its blame (@chain/ledger's LEDGER_BLAME, ...).
 */
export type Blame = 'sender' | 'none';

/**
 * The reasons a block is refused with when it is imported (INVALID_BLOCK): every one the import can
 * produce, the block-level ones included (`BLOCK_BY_NON_PRODUCER`, `BLOCK_BY_RECENT_SIGNER`,
 * `DUPLICATE_OPERATION_IN_BLOCK`: the same rules as NOT_A_PRODUCER, RECENT_SIGNER and
 * DUPLICATE_OPERATION, which refuse this node's own block production or a submission with another
 * code). @chain/ledger's `LEDGER_BLAME` says whose fault each is.
 */
export const BLOCK_IMPORT_REASONS = {
  MALFORMED_BLOCK: 'INVALID_BLOCK',
  NOT_NEXT_BLOCK: 'INVALID_BLOCK',
  WRONG_PARENT: 'INVALID_BLOCK',
  TIMESTAMP_TOO_EARLY: 'INVALID_BLOCK',
  TIMESTAMP_IN_FUTURE: 'INVALID_BLOCK',
  BLOCK_BY_NON_PRODUCER: 'INVALID_BLOCK',
  BLOCK_BY_RECENT_SIGNER: 'INVALID_BLOCK',
  BAD_BLOCK_SIGNATURE: 'INVALID_BLOCK',
  TOO_MANY_OPERATIONS: 'INVALID_BLOCK',
  BAD_OPERATION: 'INVALID_BLOCK',
  DUPLICATE_OPERATION_IN_BLOCK: 'INVALID_BLOCK',
  BAD_OPERATION_SIGNATURE: 'INVALID_BLOCK',
  BAD_OPERATIONS_ROOT: 'INVALID_BLOCK',
  INVALID_OPERATION_IN_BLOCK: 'INVALID_BLOCK',
  BAD_STATE_ROOT: 'INVALID_BLOCK',
  WRONG_PRODUCER_SET: 'INVALID_BLOCK',
} as const satisfies Record<string, 'INVALID_BLOCK'>;

/** The ledger's reasons: blocks, operations, accounts, the mempool, the data directory, codecs. */
export const LEDGER_REASONS = {
  ...BLOCK_IMPORT_REASONS,
  // A branch, a rollback or a block asked for refused: INVALID_BLOCK.
  BAD_FORK_POINT: 'INVALID_BLOCK',
  BAD_ROLLBACK: 'INVALID_BLOCK',
  ROLLBACK_TOO_DEEP: 'INVALID_BLOCK',
  BLOCK_NOT_FOUND: 'INVALID_BLOCK',
  /** A block (or an operation in one) below the history of a node restored from a snapshot. */
  BEFORE_HISTORY: 'INVALID_BLOCK',
  // This node's own block production.
  NOT_A_PRODUCER: 'NOT_ALLOWED',
  RECENT_SIGNER: 'NOT_ALLOWED',
  // Operations against the state.
  UNKNOWN_OPTYPE: 'INVALID_OPERATION',
  ALREADY_ACTIVE: 'INVALID_OPERATION',
  UNKNOWN_ACCOUNT: 'INVALID_ACCOUNT',
  UNKNOWN_RECEIVER: 'INVALID_ACCOUNT',
  ACCOUNT_EXISTS: 'INVALID_ACCOUNT',
  SELF_TRANSFER: 'INVALID_ACCOUNT',
  /** Coins to a token's address (raised by the ledger from @chain/tokens' address reservation). */
  RECEIVER_IS_TOKEN: 'INVALID_ACCOUNT',
  INACTIVE_ACCOUNT: 'INACTIVE_ACCOUNT',
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  INVALID_N_OPERATION: 'INVALID_N_OPERATION',
  KEY_NOT_OF_ACCOUNT: 'SIGNATURE_MISMATCH',
  SIGNATURE_MISMATCH: 'SIGNATURE_MISMATCH',
  BAD_PUBLIC_KEY: 'INVALID_KEY',
  BAD_AMOUNT: 'INVALID_AMOUNT',
  FEE_TOO_LOW: 'FEE_TOO_LOW',
  ZERO_FEE_USED: 'FEE_TOO_LOW',
  DUPLICATE_OPERATION: 'DUPLICATE_OPERATION',
  MEMPOOL_FULL: 'MEMPOOL_FULL',
  NEW_ACCOUNTS_FULL: 'MEMPOOL_FULL',
  // Bytes that do not decode, or values that do not encode.
  BAD_AMOUNT_ENCODING: 'INVALID_DATA',
  // A history cursor that no page returned (getWalletOperations, getTokenOperations).
  BAD_CURSOR: 'INVALID_DATA',
  BAD_BODY: 'INVALID_DATA',
  BAD_SNAPSHOT: 'INVALID_DATA',
  BAD_COUNT: 'INVALID_DATA',
  BAD_GENESIS: 'INVALID_DATA',
  BAD_OPTYPE: 'INVALID_DATA',
  BAD_PAYLOAD_TYPE: 'INVALID_DATA',
  BAD_RECEIVER: 'INVALID_DATA',
  BAD_SIGNATURE: 'INVALID_DATA',
  BAD_SPACE_NAME: 'INVALID_DATA',
  BAD_SUBTYPE: 'INVALID_DATA',
  BAD_UTF8: 'INVALID_DATA',
  OUT_OF_RANGE: 'INVALID_DATA',
  PAYLOAD_TOO_LONG: 'INVALID_DATA',
  TOO_LONG: 'INVALID_DATA',
  TRAILING_BYTES: 'INVALID_DATA',
  TRUNCATED: 'INVALID_DATA',
  // The chain's life: the data directory, the operation registry.
  CHAIN_CLOSED: 'NOT_ALLOWED',
  CORRUPT_DATADIR: 'INVALID_DATA',
  DATADIR_IN_USE: 'NOT_ALLOWED',
  DATADIR_NOT_EMPTY: 'NOT_ALLOWED',
  RESTORE_INTERRUPTED: 'NOT_ALLOWED',
  DATADIR_TOO_NEW: 'NOT_ALLOWED',
  DATADIR_TOO_OLD: 'NOT_ALLOWED',
  DATADIR_UNUSABLE: 'NOT_ALLOWED',
  GENESIS_MISMATCH: 'NOT_ALLOWED',
  STORE_FAILED: 'NOT_ALLOWED',
  DUPLICATE_OPTYPE: 'NOT_ALLOWED',
  DUPLICATE_SPACE: 'NOT_ALLOWED',
  REGISTRY_SEALED: 'NOT_ALLOWED',
  UNREGISTERED_SPACE: 'NOT_ALLOWED',
} as const satisfies Record<string, DomainErrorName>;

/** The token rules' reasons (@chain/tokens). */
export const TOKEN_REASONS = {
  ALREADY_TOKEN_OWNER: 'TOKEN_RULE',
  BAD_PAGE_SIZE: 'TOKEN_RULE',
  BURN_EXCEEDS_BALANCE: 'TOKEN_RULE',
  DECIMAL_OUT_OF_RANGE: 'TOKEN_RULE',
  INSUFFICIENT_TOKEN_BALANCE: 'TOKEN_RULE',
  LOCK_EXCEEDS_BALANCE: 'TOKEN_RULE',
  LOCK_TOO_LONG: 'TOKEN_RULE',
  NOT_ADVANCED_TOKEN: 'TOKEN_RULE',
  NOT_TOKEN_OWNER: 'TOKEN_RULE',
  SUPPLY_TOO_LARGE: 'TOKEN_RULE',
  TOKEN_ADDRESS_HOLDS_COINS: 'TOKEN_RULE',
  TOKEN_EXISTS: 'TOKEN_RULE',
  TOKEN_SELF_TRANSFER: 'TOKEN_RULE',
  TOKEN_TRANSFER_DISABLED: 'TOKEN_RULE',
  TOKEN_VOLUME_LOCKED: 'TOKEN_RULE',
  TOTAL_AMOUNT_NOT_POSITIVE: 'TOKEN_RULE',
  TOTAL_AMOUNT_NOT_WHOLE: 'TOKEN_RULE',
  WALLET_TRANSFER_DISABLED: 'TOKEN_RULE',
  ZERO_TOKEN_AMOUNT: 'TOKEN_RULE',
  NAME_EMPTY: 'TOKEN_RULE',
  NAME_TOO_LONG: 'TOKEN_RULE',
  SYMBOL_EMPTY: 'TOKEN_RULE',
  SYMBOL_TOO_LONG: 'TOKEN_RULE',
  SUMMARY_EMPTY: 'TOKEN_RULE',
  SUMMARY_TOO_LONG: 'TOKEN_RULE',
  RECEIVER_IS_TOKEN: 'INVALID_ACCOUNT',
  TOO_PRECISE: 'INVALID_AMOUNT',
  HOLDER_NOT_FOUND: 'NOT_FOUND',
  UNKNOWN_TOKEN: 'NOT_FOUND',
  BAD_ADDRESS_HASH: 'INVALID_DATA',
  BAD_FLAG: 'INVALID_DATA',
  MISSING_FIELD: 'INVALID_DATA',
  PAYLOAD_TOO_LONG: 'INVALID_DATA',
} as const satisfies Record<string, DomainErrorName>;

/** The participation rules' reasons (@chain/tiers). */
export const PARTICIPATION_REASONS = {
  ALREADY_PARTICIPATING: 'PARTICIPATION_RULE',
  ALREADY_STARTED: 'PARTICIPATION_RULE',
  BAD_MINE_CONSENT: 'PARTICIPATION_RULE',
  HAS_SUB_NODES: 'PARTICIPATION_RULE',
  MINE_NOT_ACTIVE: 'PARTICIPATION_RULE',
  NOT_MIDDLE_CONFIRMER: 'PARTICIPATION_RULE',
  NOT_MIDDLE_WALLET: 'PARTICIPATION_RULE',
  NOT_TOP_CONFIRMER: 'PARTICIPATION_RULE',
  NOT_TOP_WALLET: 'PARTICIPATION_RULE',
  STAKE_TOO_SMALL: 'PARTICIPATION_RULE',
  STEP_OUT_OF_ORDER: 'PARTICIPATION_RULE',
  WALLET_IN_USE: 'PARTICIPATION_RULE',
  WRONG_CODE: 'PARTICIPATION_RULE',
  WRONG_MAIN: 'PARTICIPATION_RULE',
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  NOT_PARTICIPATING: 'NOT_FOUND',
  UNKNOWN_CODE: 'NOT_FOUND',
  BAD_CODE: 'INVALID_DATA',
  BAD_COUNT: 'INVALID_DATA',
  BAD_FLAG: 'INVALID_DATA',
  BAD_GENESIS: 'INVALID_DATA',
  BAD_NODES: 'INVALID_DATA',
  BAD_NUMBER: 'INVALID_DATA',
  BAD_PENALTY: 'INVALID_DATA',
  BAD_SIGNATURE: 'INVALID_DATA',
  BAD_STATE: 'INVALID_DATA',
  BAD_UTF8: 'INVALID_DATA',
  BAD_WALLET: 'INVALID_DATA',
  TOO_LONG: 'INVALID_DATA',
} as const satisfies Record<string, DomainErrorName>;

/** The key store's reasons (@chain/keystore). */
export const KEYSTORE_REASONS = {
  UNKNOWN_WALLET: 'NOT_FOUND',
  WRONG_PASSPHRASE: 'WRONG_PASSPHRASE',
  WALLET_LOCKED: 'WALLET_LOCKED',
  TOO_MANY_ATTEMPTS: 'TOO_MANY_ATTEMPTS',
  INVALID_KEY_FILE: 'INVALID_DATA',
  INVALID_PRIVATE_KEY: 'INVALID_KEY',
  /** The persisted lock state cannot be read: refusing to guess which wallets were locked. */
  INVALID_LOCK_STATE: 'INVALID_DATA',
  /** A call before open() or after close(). */
  KEYSTORE_CLOSED: 'NOT_ALLOWED',
} as const satisfies Record<string, DomainErrorName>;

/** The node's own reasons (chain-node's handlers, beyond what the packages raise). */
export const NODE_REASONS = {
  /** sendTo's or sendToken's `reference` used before by the sender for another operation. */
  REFERENCE_REUSED: 'DUPLICATE_OPERATION',
  /** The reference's operation lost its n_operation to another operation: it was never paid. */
  REFERENCE_SUPERSEDED: 'INVALID_N_OPERATION',
} as const satisfies Record<string, DomainErrorName>;

export type LedgerReason = keyof typeof LEDGER_REASONS;
export type BlockImportReason = keyof typeof BLOCK_IMPORT_REASONS;
export type TokenReason = keyof typeof TOKEN_REASONS;
export type ParticipationReason = keyof typeof PARTICIPATION_REASONS;
export type KeyStoreReason = keyof typeof KEYSTORE_REASONS;

/** Every domain reason with its code's name (a reason raised by two packages has one code). */
export const DOMAIN_ERROR_REASONS: Readonly<Record<string, DomainErrorName>> = Object.freeze({
  ...LEDGER_REASONS,
  ...TOKEN_REASONS,
  ...PARTICIPATION_REASONS,
  ...KEYSTORE_REASONS,
  ...NODE_REASONS,
});

/** The code a reason of one of the tables above is answered with. */
export type CodeOfReason<
  Table extends Readonly<Record<string, DomainErrorName>>,
  R extends keyof Table,
> = (typeof DOMAIN_ERROR_CODES)[Table[R]];

/** The reasons of a table whose code is one of `Codes` (a refusal helper takes only those). */
export type ReasonsCoded<
  Table extends Readonly<Record<string, DomainErrorName>>,
  Codes extends DomainErrorName,
> = { [R in keyof Table]: Table[R] extends Codes ? R : never }[keyof Table];

/** The reasons of each domain code, in table order (docs/rpc.md shows them). */
export function reasonsByCode(): ReadonlyMap<number, readonly string[]> {
  const byCode = new Map<number, string[]>();
  for (const [reason, name] of Object.entries(DOMAIN_ERROR_REASONS)) {
    const code = DOMAIN_ERROR_CODES[name];
    const list = byCode.get(code) ?? [];
    list.push(reason);
    byCode.set(code, list);
  }
  return byCode;
}
