export { formatTokenAmount, parseTokenAmount, parseTotalAmount } from './amounts';
export { TokenError, type TokenReason, tokenBlame } from './errors';
export {
  DEFAULT_HOLDER_PAGE,
  MAX_HOLDER_PAGE,
  MAX_TOKEN_DECIMAL,
  MAX_TOKEN_NAME_LENGTH,
  MAX_TOKEN_SUMMARY_LENGTH,
  MAX_TOKEN_SUPPLY,
  MAX_TOKEN_SYMBOL_LENGTH,
} from './limits';
export {
  ADMIN_TOKEN_FIELDS,
  ADMIN_TOKEN_METHODS,
  ADMIN_TOKEN_SUBTYPES,
  type AdminTokenBody,
  type AdminTokenFields,
  type AdminTokenMethod,
  adminTokenOperations,
} from './operation/admin-token';
export {
  ADMIN_PAYLOAD_TYPE,
  CREATE_TOKEN_OPTYPE,
  SEND_TOKEN_SUBTYPE,
  TOKEN_OPTYPE,
} from './operation/common';
export { type CreateTokenBody, createTokenOperation } from './operation/create-token';
export {
  adminTokenRequest,
  createTokenRequest,
  sendTokenRequest,
} from './operation/requests';
export { type SendTokenBody, sendTokenOperation } from './operation/send-token';
export {
  type HolderPage,
  isTokenAddress,
  readToken,
  type TokenChainView,
  type TokenHolderEntry,
  type TokenHolders,
  type TokenInfo,
  tokenAddressStateKey,
  tokenHolders,
  tokenInfo,
  type WalletTokensView,
  walletTokens,
} from './read';
export { registerTokens, tokenOperationTypes } from './register';
export {
  type HolderState,
  holderSpace,
  type TokenState,
  tokenSpace,
} from './state';
