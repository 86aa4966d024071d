/**
 * `@chain/tokens/codec`: the token operations' byte layouts and the token address derivation,
 * without state, for offline signers and browser bundles (`@chain/offline`).
 * docs/wire-format.md describes the bytes.
 */
export {
  ADMIN_TOKEN_FIELDS,
  ADMIN_TOKEN_METHODS,
  ADMIN_TOKEN_SUBTYPES,
  type AdminTokenBody,
  type AdminTokenFields,
  type AdminTokenMethod,
  adminTokenCodec,
  CREATE_TOKEN_OPTYPE,
  type CreateTokenBody,
  createTokenCodec,
  SEND_TOKEN_SUBTYPE,
  type SendTokenBody,
  sendTokenCodec,
  TOKEN_OPTYPE,
  tokenHash,
} from './operation/codecs';
export {
  adminTokenRequest,
  createTokenRequest,
  sendTokenRequest,
} from './operation/requests';
