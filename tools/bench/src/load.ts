/**
 * Keep-alive HTTP load from a separate process (autocannon in a forked worker), so the load generator
 * never competes with the server under test inside one event loop.
 */
import { fileURLToPath } from 'node:url';
import { firstMessage, forkTypeScript, stopChild } from './ts-child-process.js';

export interface LoadOptions {
  url: string;
  /** The JSON-RPC request body POSTed on every request. */
  body: string;
  connections: number;
  /** Measured seconds. */
  durationSec: number;
  /** Seconds of load before the measurement (JIT warm-up, connection set-up); not counted. */
  warmupSec: number;
  headers?: Record<string, string>;
}

export const DEFAULT_LOAD_OPTIONS = {
  connections: 10,
  durationSec: 10,
  warmupSec: 2,
} as const satisfies Partial<LoadOptions>;

export interface LoadResult {
  /** Completed requests per second over the measured period. */
  requestsPerSec: number;
  /** Completed requests. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, including timeouts. */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** 2xx replies whose body is not a JSON-RPC result (a JSON-RPC error, or no `result`). */
  mismatches: number;
  durationSec: number;
}

/** Message from the parent to the load worker. */
export type LoadWorkerRequest = Required<Omit<LoadOptions, 'headers'>> & {
  headers: Record<string, string>;
};

/** Message from the load worker to the parent. */
export type LoadWorkerReply = { ok: true; result: LoadResult } | { ok: false; error: string };

/** A load run that saw failed requests: its figures would be meaningless. */
export class LoadFailureError extends Error {
  readonly result: LoadResult;

  constructor(message: string, result: LoadResult) {
    super(message);
    this.name = 'LoadFailureError';
    this.result = result;
  }
}

/**
 * Runs keep-alive load against `url` and returns throughput and latency. Rejects with
 * LoadFailureError when any request failed, got a non-2xx status or a JSON-RPC error reply.
 */
export async function runLoad(
  options: Partial<LoadOptions> & Pick<LoadOptions, 'url' | 'body'>,
): Promise<LoadResult> {
  const request: LoadWorkerRequest = {
    ...DEFAULT_LOAD_OPTIONS,
    ...options,
    headers: { 'content-type': 'application/json', ...options.headers },
  };
  const worker = forkTypeScript(fileURLToPath(new URL('./load-worker.ts', import.meta.url)));
  try {
    const reply = firstMessage<LoadWorkerReply>(worker, 'the load worker');
    worker.send(request);
    const outcome = await reply;
    if (!outcome.ok) throw new Error(`load against ${options.url} failed: ${outcome.error}`);
    assertClean(outcome.result, options.url);
    return outcome.result;
  } finally {
    await stopChild(worker);
  }
}

function assertClean(result: LoadResult, url: string): void {
  const problems = [
    result.errors > 0 && `${result.errors} connection errors (${result.timeouts} timeouts)`,
    result.non2xx > 0 && `${result.non2xx} non-2xx replies`,
    result.mismatches > 0 && `${result.mismatches} replies that are not JSON-RPC results`,
    result.requests === 0 && 'no completed request',
  ].filter((problem): problem is string => typeof problem === 'string');
  if (problems.length > 0) {
    throw new LoadFailureError(
      `load against ${url} is not clean: ${problems.join(', ')} out of ${result.requests} requests`,
      result,
    );
  }
}
