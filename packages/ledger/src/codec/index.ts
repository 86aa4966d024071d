/**
 * `@chain/ledger/codec`: the operation wire format without state, storage or Node-only code (no
 * LevelDB), for offline signers and browser bundles (`@chain/offline`). The main entry re-exports
 * the same functions; docs/wire-format.md describes the bytes.
 */
export { ChainError, ErrorCode } from '@chain/crypto';
export { DecodeError, LedgerError } from '../errors';
export {
  ACTIVATION_OPTYPE,
  type ActivationBody,
  activationCodec,
} from '../operation/activation-codec';
export {
  TRANSFER_OPTYPE,
  type TransferBody,
  type TransferReceiver,
  transferCodec,
} from '../operation/transfer-codec';
export {
  activationRequest,
  type RequestBuilder,
  type RequestSigning,
  requestBuilder,
  type TypedRequest,
  transferRequest,
} from '../operation/typed-request';
export {
  appendSignature,
  encodeRawOperations,
  encodeUnsignedOperation,
  MAX_OPERATION_BYTES,
  NEW_ACCOUNT,
  OPERATION_SIGNATURE_LENGTH,
  type OperationCodec,
  type OperationHeader,
  operationSigningHash,
} from '../operation/wire';
export { ByteReader, MAX_AMOUNT_BYTES } from './byte-reader';
export { ByteWriter } from './byte-writer';
