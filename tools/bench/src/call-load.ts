/**
 * Keep-alive load of one JSON-RPC method with a different body per call (e.g. sendTo to many
 * receivers) from a separate process, counting only the calls answered with a JSON-RPC result.
 *
 * Unlike runLoad (autocannon), it stops sending at the deadline and then waits for every reply in
 * flight, so "succeeded" is exactly the number of calls the server acknowledged: a benchmark can
 * then check that every acknowledged operation was mined.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { forkTypeScript, stopChild } from './ts-child-process.js';

export interface CallLoadOptions {
  url: string;
  method: string;
  /** The params of every call. */
  params: Record<string, unknown>;
  /**
   * Params that change from call to call: call i takes `cycle[name][i % length]` for each name
   * (so two lists of coprime lengths give every pair).
   */
  cycle: Record<string, readonly unknown[]>;
  /**
   * Params each connection takes in order from a list of its own: connection c sends
   * `sequences[name][c][0]`, then `[1]`, ... and stops when its list is done. For calls that
   * must arrive in order (pre-signed operations of one signer carry consecutive n_operation);
   * with it, `connections` must equal the number of lists.
   */
  sequences?: Record<string, readonly (readonly unknown[])[]>;
  /**
   * The method reports refused operations inside its result, as excuteRaw does (`valid: false`):
   * a result holding one counts as refused, not succeeded.
   */
  refusalsInResult?: boolean;
  /**
   * A refusal reason (`MEMPOOL_FULL`: retry later) after which a connection sends the same call
   * again, RETRY_AFTER_MS later, as a client told to retry would: a pre-signed sequence then stays
   * in n_operation order. The refusal is counted all the same.
   */
  retryReason?: string;
  /**
   * The sequence param whose entries are lists of single-operation hex strings (excuteRaw's
   * operations, each list one call): the connection sends each list as one raw blob (u32 count,
   * then the operations), counts the operations its reply accepted and refused
   * (`operationsAccepted`, `operationsRefused`), and when the first refused one was refused with
   * `retryReason` sends it and those after it (which follow it in n_operation) again, as a blob of
   * their own, RETRY_AFTER_MS later: a client that a full pool told to retry later does that.
   */
  rawOperations?: string;
  connections: number;
  /** Stop sending after this many seconds. */
  durationSec: number;
  /** Stop sending once this many calls succeeded (default: no limit). */
  maxSucceeded?: number;
  /** Seconds between progress reports (default: none). */
  progressEverySec?: number;
}

export const DEFAULT_CALL_LOAD_OPTIONS = {
  connections: 32,
  durationSec: 20,
} as const satisfies Partial<CallLoadOptions>;

/** How long a connection waits before it sends a call refused with `retryReason` again. */
export const RETRY_AFTER_MS = 100;

export interface CallLoadResult {
  /** Calls answered with a JSON-RPC result (the server acknowledged them). */
  succeeded: number;
  /** Calls answered with a JSON-RPC error (refused by the server). */
  refused: number;
  /** Calls without a usable reply: non-200, unparsable body, connection failure. */
  failed: number;
  /** The refused calls by their error's `data.reason` (`code <n>` without one, `in result`). */
  refusedByReason: Record<string, number>;
  /** With `rawOperations`: operations the replies accepted, and refused (each time it was sent). */
  operationsAccepted: number;
  operationsRefused: number;
  /** The first few distinct error messages, for the log. */
  errorSamples: string[];
  /** Wall-clock time (Date.now()) the first call was sent and the last reply arrived. */
  startedAtMs: number;
  endedAtMs: number;
  /** endedAt - startedAt, in seconds. */
  durationSec: number;
  /** succeeded / durationSec. */
  succeededPerSec: number;
  /** Latency of succeeded calls. */
  p50Ms: number;
  p99Ms: number;
}

export interface CallLoadProgress {
  succeeded: number;
  refused: number;
  failed: number;
}

/** Messages from the worker to the parent. */
/**
 * What runCallLoad sends the worker: the options without their sequences, then each connection's
 * list of each sequence in a message of its own. One message of them all was one JSON text of
 * every pre-signed operation (past a million, more than a string may hold).
 */
export type CallLoadRequest =
  | {
      kind: 'options';
      options: Omit<CallLoadOptions, 'sequences'>;
      sequences: Record<string, number>;
    }
  | { kind: 'sequence'; name: string; connection: number; list: readonly unknown[] };

export type CallLoadMessage =
  | { kind: 'progress'; progress: CallLoadProgress }
  | { kind: 'done'; result: CallLoadResult }
  | { kind: 'error'; error: string };

/** The raw blob (hex) of single-operation hex strings: u32 little-endian count, then each. */
export function rawBlobHex(operations: readonly string[]): string {
  const n = operations.length;
  const count = [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  return count + operations.join('');
}

/** Nearest-rank percentile of ascending values (0 when there are none). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** The options, then each sequence list (CallLoadRequest), in order on the worker's channel. */
function sendRequest(worker: ChildProcess, request: CallLoadOptions): void {
  const { sequences = {}, ...options } = request;
  const counts = Object.fromEntries(
    Object.entries(sequences).map(([name, lists]) => [name, lists.length]),
  );
  worker.send({ kind: 'options', options, sequences: counts } satisfies CallLoadRequest);
  for (const [name, lists] of Object.entries(sequences)) {
    lists.forEach((list, connection) => {
      worker.send({ kind: 'sequence', name, connection, list } satisfies CallLoadRequest);
    });
  }
}

/** Runs the load in a forked worker; `onProgress` sees the running counts. */
export async function runCallLoad(
  options: Partial<CallLoadOptions> & Pick<CallLoadOptions, 'url' | 'method' | 'params'>,
  onProgress?: (progress: CallLoadProgress) => void,
): Promise<CallLoadResult> {
  const request: CallLoadOptions = { ...DEFAULT_CALL_LOAD_OPTIONS, cycle: {}, ...options };
  const worker = forkTypeScript(fileURLToPath(new URL('./call-load-worker.ts', import.meta.url)));
  try {
    const outcome = await new Promise<CallLoadMessage>((resolve, reject) => {
      worker.on('message', (message: CallLoadMessage) => {
        if (message.kind === 'progress') onProgress?.(message.progress);
        else resolve(message);
      });
      worker.once('exit', (code, signal) =>
        reject(new Error(`the call-load worker exited early (code ${code}, signal ${signal})`)),
      );
      worker.once('error', reject);
      sendRequest(worker, request);
    });
    if (outcome.kind === 'error') {
      throw new Error(`load against ${options.url} failed: ${outcome.error}`);
    }
    if (outcome.kind !== 'done') throw new Error('unexpected message from the call-load worker');
    return outcome.result;
  } finally {
    await stopChild(worker);
  }
}
