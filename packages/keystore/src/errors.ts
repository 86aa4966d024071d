import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';

const CODE_BY_REASON = {
  UNKNOWN_WALLET: ErrorCode.NOT_FOUND,
  WRONG_PASSPHRASE: ErrorCode.WRONG_PASSPHRASE,
  WALLET_LOCKED: ErrorCode.WALLET_LOCKED,
  TOO_MANY_ATTEMPTS: ErrorCode.TOO_MANY_ATTEMPTS,
  INVALID_KEY_FILE: ErrorCode.INVALID_DATA,
  INVALID_PRIVATE_KEY: ErrorCode.INVALID_KEY,
  /** The persisted lock state cannot be read: refusing to guess which wallets were locked. */
  INVALID_LOCK_STATE: ErrorCode.INVALID_DATA,
  /** A call before open() or after close(). */
  KEYSTORE_CLOSED: ErrorCode.NOT_ALLOWED,
} as const;

export type KeyStoreErrorReason = keyof typeof CODE_BY_REASON;

/**
 * Every failure of the key store. Messages name wallets and files, never passphrases or keys.
 * `param` names the argument of the key store call at fault (`address`, `passphrase`,
 * `privateKey`, `ethAddress`); the RPC layer re-attributes it to its own parameter names.
 */
export class KeyStoreError extends ChainError {
  declare readonly reason: KeyStoreErrorReason;

  constructor(reason: KeyStoreErrorReason, message: string, options: ChainErrorOptions = {}) {
    super(CODE_BY_REASON[reason], reason, message, options);
  }
}
