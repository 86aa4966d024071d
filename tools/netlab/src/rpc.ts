/** JSON-RPC calls to a lab node (Basic auth: the lab's nodes serve RPC off loopback). */
import { createClient, isRpcError } from '@chain/rpc-client';

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly reason?: string,
  ) {
    super(`${method}: ${code} ${reason ?? ''} ${message}`);
  }
}

export interface RpcEndpoint {
  url: string;
  user: string;
  password: string;
}

/**
 * One call through the SDK (@chain/rpc-client), not retried (the lab judges timings itself); a
 * JSON-RPC error comes back as this module's RpcError, naming the method.
 */
export async function rpcCall<T = unknown>(
  endpoint: RpcEndpoint,
  method: string,
  params: Record<string, unknown> = {},
  timeoutMs = 10_000,
): Promise<T> {
  const client = createClient({
    url: endpoint.url,
    auth: { user: endpoint.user, password: endpoint.password },
    timeoutMs,
    retries: 0,
  });
  const call = client.call as (name: string, params?: unknown) => Promise<unknown>;
  try {
    return (await call(method, params)) as T;
  } catch (error) {
    if (isRpcError(error)) throw new RpcError(method, error.code, error.message, error.reason);
    throw error;
  }
}

/** The fields of an operation object the lab reads. */
export interface LabOperation {
  block: number;
  ophash: string;
  n_operation: number;
  signer_account: string;
  valid?: boolean;
  errors?: string;
}

export interface BlockSummary {
  block: number;
  hash: string;
  hmr: string;
  operations: number;
}
