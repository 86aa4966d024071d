import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';
import { echoed, KEYSTORE_REASONS, type KeyStoreReason } from '@chain/spec';
import type { KeyEntry } from './key-index-api';

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

/** The store's common errors, worded once. */
export function unknownWallet(address: string, detail = '', param = 'address'): KeyStoreError {
  return new KeyStoreError(
    'UNKNOWN_WALLET',
    `wallet ${echoed(String(address))} is not in the key store${detail}`,
    { param },
  );
}

export function walletLocked(entry: KeyEntry): KeyStoreError {
  return new KeyStoreError('WALLET_LOCKED', `wallet ${entry.address} is locked`, {
    param: 'address',
  });
}

export function fileChanged(entry: KeyEntry, param: string): KeyStoreError {
  return new KeyStoreError(
    'UNKNOWN_WALLET',
    `the key file ${entry.fileName} changed or disappeared; refresh and retry`,
    { param },
  );
}

export function assertPassphrase(passphrase: unknown): asserts passphrase is string {
  if (typeof passphrase !== 'string') {
    throw new KeyStoreError('WRONG_PASSPHRASE', 'passphrase must be a string', {
      param: 'passphrase',
    });
  }
}
