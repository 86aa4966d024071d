/**
 * @chain/spec: the wire contract of chain-node, the one source that the server (@chain/rpc-jayson),
 * the SDK (@chain/rpc-client) and the domain packages read. The method catalogue (every JSON-RPC
 * method with its params and result type), the result objects, the error codes and the JSON-RPC
 * envelope. Pure data and types, no dependencies (browser-safe): the server builds its coercion
 * tables from it and the SDK derives its types from it.
 */
import { blockMethods } from './block.js';
import type { MethodGroup, MethodSpec } from './method.js';
import { networkMethods } from './network.js';
import { operationMethods } from './operations.js';
import type { AnyParam, ParamValue, ResultMarker } from './param.js';
import { participationMethods } from './participation.js';
import { pushMethods } from './push.js';
import type { NestedResult } from './results.js';
import { statsMethods } from './stats.js';
import { tokenMethods } from './token.js';
import { walletMethods } from './wallet.js';

export const catalogue = {
  ...tokenMethods,
  ...operationMethods,
  ...participationMethods,
  ...walletMethods,
  ...blockMethods,
  ...networkMethods,
  ...statsMethods,
  ...pushMethods,
} as const satisfies Record<string, MethodSpec>;

export type Catalogue = typeof catalogue;
export type MethodName = keyof Catalogue;

/** The methods of one catalogue group. */
export type MethodOfGroup<G extends MethodGroup> = {
  [M in MethodName]: Catalogue[M]['group'] extends G ? M : never;
}[MethodName];

/** Every method name, in catalogue order. */
export const METHOD_NAMES = Object.keys(catalogue) as MethodName[];

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(catalogue, name);
}

type ParamsSpecOf<M extends MethodName> = Catalogue[M]['params'];
type KeysWhere<S, P> = {
  [K in keyof S]: S[K] extends { readonly presence: P } ? K : never;
}[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequestParams<S extends Readonly<Record<string, AnyParam>>> = Simplify<
  { [K in KeysWhere<S, 'required'>]: ParamValue<S[K]> } & {
    [K in KeysWhere<S, 'optional' | 'defaulted'>]?: ParamValue<S[K]>;
  }
>;

type CoercedParams<S extends Readonly<Record<string, AnyParam>>> = Simplify<
  { [K in KeysWhere<S, 'required' | 'defaulted'>]: ParamValue<S[K]> } & {
    [K in KeysWhere<S, 'optional'>]?: ParamValue<S[K]>;
  }
>;

/** The params object a client sends to method M (optional params may be omitted). */
export type ParamsOf<M extends MethodName> = RequestParams<ParamsSpecOf<M>>;

/** The params object a handler of M receives: coerced, with defaults filled in. */
export type HandlerParamsOf<M extends MethodName> = CoercedParams<ParamsSpecOf<M>>;

/** The value a handler of M returns. */
export type HandlerResultOf<M extends MethodName> =
  Catalogue[M]['result'] extends ResultMarker<infer T, infer _C> ? T : never;

/** What a client is told M's result is: the handler's type, or the catalogue's sharper one. */
type ClientResultOf<M extends MethodName> =
  Catalogue[M]['result'] extends ResultMarker<infer _T, infer C> ? C : never;

/** The `result` of a reply to M, as a client receives it. */
export type ResultOf<M extends MethodName> = Catalogue[M] extends { readonly nestedResult: true }
  ? NestedResult<ClientResultOf<M>>
  : ClientResultOf<M>;

export { blockMethods } from './block.js';
export { echoed } from './echo.js';
export {
  DOMAIN_ERROR_CODES,
  ERROR_CODES,
  type ErrorCodeName,
  PROTOCOL_ERROR_CODES,
  PROTOCOL_ERRORS,
  type ProtocolErrorReason,
  type ProtocolErrorSpec,
} from './error-codes.js';
export {
  BLOCK_IMPORT_REASONS,
  type Blame,
  type BlockImportReason,
  type CodeOfReason,
  DOMAIN_ERROR_REASONS,
  type DomainErrorName,
  KEYSTORE_REASONS,
  type KeyStoreReason,
  LEDGER_REASONS,
  type LedgerReason,
  NODE_REASONS,
  PARTICIPATION_REASONS,
  type ParticipationReason,
  type ReasonsCoded,
  reasonsByCode,
  TOKEN_REASONS,
  type TokenReason,
} from './error-reasons.js';
export { DEFAULT_HISTORY_PAGE, HISTORY_PAGE_PARAMS, MAX_HISTORY_PAGE } from './history.js';
export { defineMethods, type MethodGroup, type MethodSpec } from './method.js';
export { MAX_BLACKLIST_WHY_LENGTH, networkMethods } from './network.js';
export type * from './operation-types.js';
export { operationMethods } from './operations.js';
export { type GivenOptions, type WithDefaults, withDefaults } from './options.js';
export {
  type AnyParam,
  Param,
  type ParamBounds,
  type ParamKind,
  type ParamValue,
  type Presence,
  p,
  type ResultMarker,
  result,
} from './param.js';
export { participationMethods } from './participation.js';
export {
  HISTORY_EVENTS,
  hasHistory,
  PUSH_EVENTS,
  PUSH_NOTIFICATION_METHOD,
  type PushEvent,
  type PushedOperation,
  type PushNotificationParams,
  type PushResults,
  pushMethods,
} from './push.js';
export { MAX_REFERENCE_LENGTH, REFERENCE_PARAM } from './reference.js';
export type * from './results.js';
export { statsMethods } from './stats.js';
export {
  ADMIN_TOKEN_METHODS,
  type AdminTokenMethod,
  MAX_PAYLOAD_BYTES,
  tokenMethods,
} from './token.js';
export { walletMethods } from './wallet.js';
export type {
  JsonRpcErrorObject,
  JsonRpcRequest,
  JsonRpcResponse,
  RpcErrorData,
} from './wire.js';
