/** JSON-RPC calls to a lab node (Basic auth: the lab's nodes serve RPC off loopback). */

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

let nextId = 1;

export async function rpcCall<T = unknown>(
  endpoint: RpcEndpoint,
  method: string,
  params: Record<string, unknown> = {},
  timeoutMs = 10_000,
): Promise<T> {
  const auth = Buffer.from(`${endpoint.user}:${endpoint.password}`).toString('base64');
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${auth}` },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: nextId++ }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const reply = (await response.json()) as {
    result?: T;
    error?: { code: number; message: string; data?: { reason?: string } };
  };
  if (reply.error) {
    throw new RpcError(method, reply.error.code, reply.error.message, reply.error.data?.reason);
  }
  return reply.result as T;
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
