export { KeyStoreError, type KeyStoreErrorReason } from './errors';
export { ethereumAddressOf } from './ethereum-address';
export { KDF_LIMITS, type ScryptParams } from './kdf';
export type { InvalidKeyFile } from './key-directory';
export {
  type ChainKeyField,
  decryptKeyFile,
  deriveScryptKey,
  encryptKeyFile,
  type KeyFileJson,
  type ParsedKeyFile,
  parseKeyFile,
  sealKeyFile,
} from './key-file';
export { createCreationClock, keyFileName } from './key-file-name';
export { INDEX_DIR } from './key-index';
export {
  type Caller,
  createKeyStore,
  DEFAULT_KEYSTORE_OPTIONS,
  type ImportOptions,
  type ImportResult,
  type IndexBuildProgress,
  type KeyStore,
  type KeyStoreOptions,
  type RefreshResult,
  type UnresolvedKeyFile,
} from './keystore';
export { LOCK_STATE_FILE, LOCKS_DIR } from './lock-state';
export { clientOf, LOCAL_CLIENT, type ThrottleClock } from './passphrase-throttle';
