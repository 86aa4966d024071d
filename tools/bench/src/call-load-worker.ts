/**
 * Child process of runCallLoad: receives CallLoadOptions over IPC, runs `connections` keep-alive
 * loops of one call at a time until the deadline (or maxSucceeded), waits for every reply in
 * flight, reports a CallLoadResult and exits.
 */
import {
  type CallLoadMessage,
  type CallLoadOptions,
  type CallLoadProgress,
  type CallLoadRequest,
  type CallLoadResult,
  percentile,
  RETRY_AFTER_MS,
  rawBlobHex,
} from './call-load.js';
import { type KeepAliveConnection, openKeepAliveConnection } from './keep-alive-connection.js';

const MAX_ERROR_SAMPLES = 5;

/** Growable list of latencies. */
class Samples {
  private values = new Float64Array(1 << 16);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

/** An excuteRaw-style result's refusal (`{ valid: false, errors }`, alone or in a list), if any. */
function refusalInResult(result: unknown): { errors?: unknown } | undefined {
  const refused = (entry: unknown): entry is { valid: false; errors?: unknown } =>
    typeof entry === 'object' && entry !== null && (entry as { valid?: unknown }).valid === false;
  if (Array.isArray(result)) return result.find(refused);
  return refused(result) ? result : undefined;
}

/**
 * What a refused call's reply says of why: its error's reason, else its code; a refusal in the
 * result by the reason its `errors` text starts with (`MEMPOOL_FULL: ...`).
 */
function refusalReason(
  error: { code?: unknown; data?: { reason?: unknown } } | undefined,
  inResult: { errors?: unknown } | undefined,
): string {
  if (error === undefined) {
    const text = typeof inResult?.errors === 'string' ? inResult.errors : '';
    return /^([A-Z_]+):/.exec(text)?.[1] ?? 'in result';
  }
  const reason = error.data?.reason;
  return typeof reason === 'string' ? reason : `code ${String(error.code)}`;
}

/** One call: its JSON text, its params, and with `rawOperations` the operations its blob holds. */
interface Call {
  request: string;
  params: Record<string, unknown>;
  operations?: readonly string[];
}

/**
 * How many of a blob's operations a reply accepted before its first refusal (the operations
 * after a refused one follow it in n_operation, so none after it is accepted): all of them for
 * a result without a refusal, none for a JSON-RPC error.
 */
function countOperations(operations: readonly string[], result: unknown): number {
  if (result === undefined) return 0;
  const entries = Array.isArray(result) ? result : [result];
  const first = entries.findIndex((entry) => refusalInResult(entry) !== undefined);
  return first === -1 ? operations.length : first;
}

async function measure(options: CallLoadOptions): Promise<CallLoadResult> {
  const cycled = Object.entries(options.cycle);
  const sequenced = Object.entries(options.sequences ?? {});
  for (const [name, lists] of sequenced) {
    if (lists.length !== options.connections) {
      throw new Error(
        `sequences.${name} has ${lists.length} lists for ${options.connections} connections`,
      );
    }
  }
  /** Calls each connection has sent (its place in its sequences). */
  const sent = new Array<number>(options.connections).fill(0);
  const sequenceDone = (connection: number): boolean =>
    sequenced.some(([, lists]) => sent[connection]! >= lists[connection]!.length);
  let nextCall = 0;
  const raw = options.rawOperations;
  const request = (params: Record<string, unknown>): string =>
    JSON.stringify({ jsonrpc: '2.0', id: nextCall++, method: options.method, params });
  /** A call of the operations (hex) left to send as one blob, with the other params given. */
  const rawCall = (params: Record<string, unknown>, operations: readonly string[]): Call => ({
    request: request({ ...params, [raw!]: rawBlobHex(operations) }),
    params,
    operations,
  });
  /** The call a connection sends again after a refusal with `retryReason`. */
  const retry = new Array<Call | undefined>(options.connections);
  const next = (connection: number): Call => {
    const again = retry[connection];
    if (again !== undefined) {
      retry[connection] = undefined;
      return again;
    }
    const step = sent[connection]!++;
    const params: Record<string, unknown> = { ...options.params };
    for (const [name, values] of cycled) params[name] = values[nextCall % values.length];
    for (const [name, lists] of sequenced) params[name] = lists[connection]![step];
    if (raw !== undefined) return rawCall(params, params[raw] as readonly string[]);
    return { request: request(params), params };
  };

  const counts: CallLoadProgress = { succeeded: 0, refused: 0, failed: 0 };
  let operationsAccepted = 0;
  let operationsRefused = 0;
  const refusedByReason: Record<string, number> = {};
  const errorSamples = new Set<string>();
  const sample = (message: string) => {
    if (errorSamples.size < MAX_ERROR_SAMPLES) errorSamples.add(message.slice(0, 300));
  };
  const latencies = new Samples();
  const maxSucceeded = options.maxSucceeded ?? Number.POSITIVE_INFINITY;

  // Connect everything before the clock starts.
  const connections = await Promise.all(
    Array.from({ length: options.connections }, () => openKeepAliveConnection(options.url)),
  );
  const startedAtMs = Date.now();
  const deadline = performance.now() + options.durationSec * 1000;
  const sending = () => performance.now() < deadline && counts.succeeded < maxSucceeded;

  const progressTimer =
    options.progressEverySec === undefined
      ? undefined
      : setInterval(
          () => send({ kind: 'progress', progress: { ...counts } }),
          options.progressEverySec * 1000,
        );

  async function loop(first: KeepAliveConnection, index: number): Promise<void> {
    let connection: KeepAliveConnection | undefined = first;
    while (sending() && (retry[index] !== undefined || !sequenceDone(index))) {
      if (connection === undefined || !connection.usable) {
        connection?.close();
        try {
          connection = await openKeepAliveConnection(options.url);
        } catch (error) {
          counts.failed++;
          sample(`connect: ${(error as Error).message}`);
          connection = undefined;
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
      }
      const started = performance.now();
      const call = next(index);
      let reply: Awaited<ReturnType<KeepAliveConnection['post']>>;
      try {
        reply = await connection.post(call.request);
      } catch (error) {
        counts.failed++;
        sample(`connection: ${(error as Error).message}`);
        continue;
      }
      const latency = performance.now() - started;
      if (reply.status !== 200) {
        counts.failed++;
        sample(`HTTP ${reply.status}: ${reply.body}`);
        continue;
      }
      let parsed: {
        result?: unknown;
        error?: { code?: unknown; message?: unknown; data?: { reason?: unknown } };
      };
      try {
        parsed = JSON.parse(reply.body);
      } catch {
        counts.failed++;
        sample(`unparsable reply: ${reply.body}`);
        continue;
      }
      const inResult =
        options.refusalsInResult === true ? refusalInResult(parsed.result) : undefined;
      const refusedFrom =
        call.operations === undefined ? 0 : countOperations(call.operations, parsed.result);
      if (call.operations !== undefined) {
        operationsAccepted += refusedFrom;
        operationsRefused += call.operations.length - refusedFrom;
      }
      if (parsed.error !== undefined || parsed.result === undefined || inResult !== undefined) {
        counts.refused++;
        const reason = refusalReason(parsed.error, inResult);
        refusedByReason[reason] = (refusedByReason[reason] ?? 0) + 1;
        sample(`refused: ${JSON.stringify(parsed.error ?? parsed)}`);
        if (reason === options.retryReason) {
          retry[index] =
            call.operations === undefined || refusedFrom === 0
              ? call
              : rawCall(call.params, call.operations.slice(refusedFrom));
          await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
        }
        continue;
      }
      counts.succeeded++;
      latencies.push(latency);
    }
    connection?.close();
  }

  await Promise.all(connections.map((connection, index) => loop(connection, index)));
  const endedAtMs = Date.now();
  if (progressTimer !== undefined) clearInterval(progressTimer);
  const durationSec = Math.max(1e-3, (endedAtMs - startedAtMs) / 1000);
  const sorted = latencies.sorted();
  return {
    ...counts,
    operationsAccepted,
    operationsRefused,
    refusedByReason,
    errorSamples: [...errorSamples],
    startedAtMs,
    endedAtMs,
    durationSec,
    succeededPerSec: counts.succeeded / durationSec,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

function send(message: CallLoadMessage, then: () => void = () => {}): void {
  process.send?.(message, then);
}

/** Collects the options and their sequence lists (CallLoadRequest), then runs the load once. */
function receiveRequest(run: (options: CallLoadOptions) => void): void {
  let options: CallLoadOptions | undefined;
  let missing = 0;
  const onMessage = (message: CallLoadRequest) => {
    if (message.kind === 'options') {
      const sequences: Record<string, unknown[][]> = {};
      for (const [name, count] of Object.entries(message.sequences)) {
        sequences[name] = new Array(count);
        missing += count;
      }
      options = { ...message.options, sequences };
    } else if (options !== undefined) {
      (options.sequences as Record<string, unknown[][]>)[message.name]![message.connection] =
        message.list as unknown[];
      missing--;
    }
    if (options !== undefined && missing === 0) {
      process.off('message', onMessage);
      run(options);
    }
  };
  process.on('message', onMessage);
}

receiveRequest((options) => {
  measure(options).then(
    (result) => send({ kind: 'done', result }, () => process.disconnect()),
    (error: unknown) =>
      send({ kind: 'error', error: error instanceof Error ? error.message : String(error) }, () =>
        process.disconnect(),
      ),
  );
});
