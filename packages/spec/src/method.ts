import type { AnyParam, ResultMarker } from './param.js';

export type MethodGroup =
  | 'token'
  | 'operations'
  | 'participation'
  | 'wallet'
  | 'block'
  | 'network'
  | 'stats'
  | 'push';

/** One JSON-RPC method of the catalogue: pure data, browser-safe. */
export interface MethodSpec {
  readonly name: string;
  readonly group: MethodGroup;
  readonly summary: string;
  /** Params in positional (catalogue) order. */
  readonly params: Readonly<Record<string, AnyParam>>;
  /** Phantom marker of the value the handler returns. */
  readonly result: ResultMarker<unknown>;
  /**
   * Only reads: calling it twice changes nothing, so a client may retry it after a lost reply
   * (the SDK's retry rule). False for anything that spends, signs, counts passphrase attempts or
   * changes the node's state.
   */
  readonly readOnly: boolean;
  /**
   * A param that, when given, makes a repeat of the call harmless (sendTo, sendToken: `reference`,
   * the node answers a repeat with the first operation): the SDK retries such a call too.
   */
  readonly idempotentWith?: string;
  /**
   * Carries or returns raw private keys: refused off loopback unless the server allows keys.
   */
  readonly keyMaterial?: true;
  /** Params also accepted at the top level of the request, beside `method`. */
  readonly paramsBesideMethod?: readonly string[];
  /**
   * Keys that may repeat inside `params`: the n-th occurrence of the key fills the n-th name
   * (blockchainStart: `{ mine: ['mine', 'share'] }`).
   */
  readonly duplicateKeys?: Readonly<Record<string, readonly string[]>>;
  /** The reply's `result` is `{ result: <handler value>, id, jsonrpc: '2.0' }` (getNodePart). */
  readonly nestedResult?: true;
  /**
   * The result is a function of the params and the node's state version only (no clock, no
   * caller): the server may answer repeats from its result cache until the version moves.
   */
  readonly cacheable?: true;
}

/** Keeps the literal types of a method entry while checking it against MethodSpec. */
export function defineMethods<const M extends Record<string, MethodSpec>>(methods: M): M {
  return methods;
}
