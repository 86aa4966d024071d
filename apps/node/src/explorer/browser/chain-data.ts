/**
 * The explorer's data layer: the only module that talks to the node. Everything the page shows
 * comes from here, through the SDK (@chain/rpc-client, bundled into the page's script) over
 * JSON-RPC POST to the page's own origin. Live updates poll through `batch` today; a WebSocket
 * push feed (issue 16) replaces the polling here and in `router.ts` only.
 */
import {
  type BatchCall,
  type BatchResults,
  createClient,
  ERROR_CODES,
  isRpcError,
  type MethodName,
  type ParamsArgs,
  type ResultOf,
  type RpcError,
} from '@chain/rpc-client';

export type {
  BlockInfo,
  BlockSync,
  Connections,
  NodeStatus,
  NodeVersion,
  OperationObject,
  ProtocolVersion,
  TokenHolders,
  TokenInfo,
  WalletInfo,
} from '@chain/rpc-client';
export type { BatchCall, RpcError };

/** The outcome of one call of a batch: its result, or the node's refusal of it. */
export type Outcome<T> = T | RpcError;

/** Live views refresh this often while live updates are on. */
export const POLL_MS = 2000;

// The page is served by the node it shows: JSON-RPC goes to the same address (the browser adds the
// credentials it used for the page).
const client = createClient({ url: new URL(location.pathname, location.href).href });

/**
 * One HTTP request with every call as a JSON-RPC batch; an outcome per call, in order. A refusal of
 * the whole request (busy, unauthorized, ...) is every call's outcome.
 */
export async function batch<const C extends readonly BatchCall[]>(
  calls: C,
): Promise<BatchResults<C>> {
  try {
    return await client.batch(calls);
  } catch (error) {
    if (isRpcError(error)) return calls.map(() => error) as BatchResults<C>;
    throw error;
  }
}

/** One call; rejects with the node's refusal. */
export function rpc<M extends MethodName>(
  method: M,
  ...params: ParamsArgs<M>
): Promise<ResultOf<M>> {
  return client.call(method, ...params);
}

/** Whether an outcome is a refusal. */
export function failed<T>(outcome: Outcome<T>): outcome is RpcError {
  return isRpcError(outcome);
}

/** The result of a call, or its refusal thrown. */
export function resultOf<T>(outcome: Outcome<T>): T {
  if (isRpcError(outcome)) throw outcome;
  return outcome;
}

/** The node does not offer this method (yet): the page says so instead of failing. */
export function isNotAvailable(outcome: unknown): boolean {
  return isRpcError(outcome, ERROR_CODES.NOT_AVAILABLE);
}

export { isRpcError };
