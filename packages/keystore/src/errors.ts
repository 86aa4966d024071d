import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';
import { KEYSTORE_REASONS, type KeyStoreReason } from '@chain/spec';

/** The reasons of the key store, each with its code in @chain/spec's KEYSTORE_REASONS. */
export type KeyStoreErrorReason = KeyStoreReason;

/**
 * Every failure of the key store. Messages name wallets and files, never passphrases or keys.
 * `param` names the argument of the key store call at fault (`address`, `passphrase`,
 * `privateKey`, `ethAddress`); the RPC layer re-attributes it to its own parameter names.
 */
export class KeyStoreError extends ChainError {
  declare readonly reason: KeyStoreErrorReason;

  constructor(reason: KeyStoreErrorReason, message: string, options: ChainErrorOptions = {}) {
    super(ErrorCode[KEYSTORE_REASONS[reason]], reason, message, options);
  }
}
