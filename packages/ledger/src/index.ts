/** The error base and codes, for packages built on the ledger that have no other use for @chain/crypto. */
export { ChainError, ErrorCode } from '@chain/crypto';
export {
  type Block,
  type BlockHeader,
  blockSigningHash,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
  type ProducerKey,
  ZERO_HASH,
} from './block/block';
export {
  type AccountView,
  type BlockListener,
  type BlockOrigin,
  type BlockPlacement,
  type BuildRequest,
  type Chain,
  type ChainHead,
  type ChainMemoryStats,
  type ChainOptions,
  createChain,
  DEFAULT_CHAIN_OPTIONS,
  type ImportBlocksOptions,
  type ImportedBlock,
  type ImportRun,
  type PendingOrigin,
  type ReorganizeResult,
  type SignRequest,
  type StateReadKeys,
} from './chain/chain';
export {
  blockWeight,
  IN_TURN_WEIGHT,
  inTurnProducer,
  OUT_OF_TURN_WEIGHT,
  type RotationSlot,
} from './chain/consensus/consensus';
export {
  type ChainTip,
  isPreferredTip,
  recentSignerWindow,
} from './chain/consensus/fork-choice';
export {
  HeaderChain,
  type HeaderChainTip,
  type HeaderCheckContext,
} from './chain/consensus/header-chain';
export {
  type HistoryOperation,
  type HistoryPage,
  type HistoryQuery,
  MAX_HISTORY_PAGE,
} from './chain/history/history-reads';
export { IMPORT_WINDOW, IMPORT_WINDOW_BYTES } from './chain/import/import-run';
export {
  type BlockProducer,
  type BlockProducerOptions,
  createBlockProducer,
  DEFAULT_BLOCK_PRODUCER_OPTIONS,
  inTurnKey,
} from './chain/production/producer';
export {
  CHUNK_RECORDS,
  decodeRecordChunk,
  encodeRecordChunk,
} from './chain/snapshot/record-chunk';
export type { RecordsCheck } from './chain/snapshot/record-order';
export type { ChainSnapshot } from './chain/snapshot/snapshot-export';
export type {
  RestoredSnapshot,
  RestorePhase,
  SnapshotSource,
} from './chain/snapshot/snapshot-restore';
export type { ServedSnapshot } from './chain/snapshot/snapshot-serving';
export type {
  BlockInfo,
  OperationObject,
  WalletInfo,
} from './chain/state/presentation';
export { type AppendedBlocks, appendUnexecutedBlocks } from './chain/storage/fixture-blocks';
export { resealHead } from './chain/storage/head-reseal';
export { type LevelDbBuild, levelDbBuild } from './chain/storage/leveldb-build';
// The layout of the state on disk, for tools that write a data directory (benchmark fixtures).
export { ENTRY_ACCOUNT, ENTRY_SPACE, StateChecksum } from './chain/storage/state-checksum';
export {
  CHAIN_DB_OPTIONS,
  heightKey as accountKey,
  META_STATE_CHECKSUM,
} from './chain/storage/store';
export { type ChainStoreCopy, copyChainStore } from './chain/storage/store-copy';
export { ByteReader, MAX_AMOUNT_BYTES } from './codec/byte-reader';
export { ByteWriter } from './codec/byte-writer';
export {
  type Blame,
  blameOf,
  type DataReason,
  DecodeError,
  LEDGER_BLAME,
  LedgerError,
  type LedgerErrorConstructor,
  type LedgerReason,
  StoreError,
} from './errors';
export {
  createDevGenesis,
  DEV_BALANCE,
  DEV_GENESIS_TIMESTAMP,
  DEV_PRIVATE_KEY,
  encodeGenesis,
  type Genesis,
  type GenesisAccount,
  genesisHash,
  parseGenesis,
  serializeGenesis,
} from './genesis';
export {
  ACTIVATION_OPTYPE,
  type ActivationBody,
  activationCodec,
  activationOperation,
  MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK,
} from './operation/activation';
export { createRegistry } from './operation/ledger-registry';
export {
  appendSignature,
  decodeOperation,
  decodeRawOperations,
  encodeRawOperations,
  encodeUnsignedOperation,
  NEW_ACCOUNT,
  OPERATION_SIGNATURE_LENGTH,
  type Operation,
  type OperationHeader,
  operationSigningHash,
} from './operation/operation';
export {
  type AddressReservation,
  type ApplyContext,
  type BlockHook,
  type BlockHookInfo,
  type BlockStartState,
  createEmptyRegistry,
  type OperationRegistry,
  type OperationType,
  type Presentation,
  type PresentContext,
  type PresentedReceiver,
  type PresentedSender,
  type StateSpace,
  type TouchedAddresses,
} from './operation/registry';
export {
  TRANSFER_OPTYPE,
  type TransferBody,
  type TransferReceiver,
  transferCodec,
  transferOperation,
} from './operation/transfer';
export {
  activationRequest,
  type RequestBuilder,
  type RequestSigning,
  requestBuilder,
  type TypedRequest,
  transferRequest,
} from './operation/typed-request';
export type { OperationCodec } from './operation/wire';
export { type Account, encodeAccount, newAccount, type Timelock } from './state/account';
export type { BlockChanges } from './state/block-changes';
export { StateLattice } from './state/state-lattice';
