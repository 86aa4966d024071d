export { KeyStoreError, type KeyStoreErrorReason } from './errors';
export { ethereumAddressOf } from './ethereum-address';
export { KDF_LIMITS, type ScryptParams } from './kdf';
export type { InvalidKeyFile } from './key-directory';
export {
  type ChainKeyField,
  decryptKeyFile,
  type KeyFileJson,
  type ParsedKeyFile,
  parseKeyFile,
} from './key-file';
export {
  type Caller,
  createKeyStore,
  DEFAULT_KEYSTORE_OPTIONS,
  type ImportOptions,
  type ImportResult,
  type KeyStore,
  type KeyStoreOptions,
  type RefreshResult,
  type UnresolvedKeyFile,
} from './keystore';
export { LOCK_STATE_FILE } from './lock-state';
export { clientOf, LOCAL_CLIENT, type ThrottleClock } from './passphrase-throttle';
