/**
 * Child process of runLoad: receives one LoadWorkerRequest over IPC, runs autocannon, replies with a
 * LoadWorkerReply and exits.
 */
import autocannon from 'autocannon';
import type { LoadResult, LoadWorkerReply, LoadWorkerRequest } from './load.js';

/**
 * Cheap per-reply check, the same for every server measured: a JSON-RPC success carries `"result"`
 * and no `"error"` member (a batch reply fails when any of its entries is an error).
 */
function isJsonRpcResult(body: string): boolean {
  return body.includes('"result"') && !body.includes('"error"');
}

async function measure(request: LoadWorkerRequest): Promise<LoadResult> {
  const base = {
    url: request.url,
    method: 'POST' as const,
    headers: request.headers,
    body: request.body,
    connections: request.connections,
    verifyBody: isJsonRpcResult,
  };
  if (request.warmupSec > 0) await autocannon({ ...base, duration: request.warmupSec });
  const result = await autocannon({ ...base, duration: request.durationSec });
  return {
    requestsPerSec: result.requests.total / result.duration,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    durationSec: result.duration,
  };
}

process.once('message', (request: LoadWorkerRequest) => {
  measure(request).then(
    (result) => reply({ ok: true, result }),
    (error: unknown) =>
      reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});

function reply(message: LoadWorkerReply): void {
  process.send?.(message, () => process.disconnect());
}
