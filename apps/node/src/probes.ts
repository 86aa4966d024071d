import type { ServerResponse } from 'node:http';
import type { GetRoute } from '@chain/rpc-jayson';

/** What GET /ready answers from: nodeStatus's `ready` and why not (rpc/network.ts `readiness`). */
type Readiness = () => { ready: boolean; reason: string };

function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/**
 * The probes of the RPC port, for load balancers, orchestrators and Docker's HEALTHCHECK: answered
 * before the Host and credential checks since they reveal nothing (docs/decisions.md).
 * `/health`: the process serves (and, while the key store's index is built, how far it is).
 * `/ready`: 200 when the node is at the best tip it knows of with
 * networking on (nodeStatus.ready), else 503 with the reason (syncing, waiting for peers, stopped).
 */
export function probeRoutes(
  readiness: Readiness,
  /** While the key store's index is being built: how far (then in /health as `keystore`). */
  keyStoreIndexing: () => { done: number; total: number } | null = () => null,
): Record<string, GetRoute> {
  return {
    '/health': (_req, res) => {
      const indexing = keyStoreIndexing();
      sendJson(
        res,
        200,
        indexing === null ? { status: 'ok' } : { status: 'ok', keystore: { indexing } },
      );
    },
    '/ready': (_req, res) => {
      const { ready, reason } = readiness();
      if (ready) sendJson(res, 200, { status: 'ready' });
      else sendJson(res, 503, { status: 'not ready', reason });
    },
  };
}
