/**
 * Sends request bodies made in advance (pre-signed operations or transactions) over keep-alive
 * connections, each connection its own queue in order (one sender per queue keeps its nonces in
 * order), until every queue is empty. Counts what the server acknowledged, as the caller reads
 * each reply; a refusal is recorded, never retried.
 *
 * It runs in the benchmark's own process: the process has nothing else to do while it sends, and
 * per request it only writes a prepared body and parses the reply.
 */
import { openKeepAliveConnection } from '../keep-alive-connection.js';

export interface PresignedLoadResult {
  /** Operations (or transactions) the replies acknowledged. */
  acknowledged: number;
  /** Requests whose reply refused something (a JSON-RPC error, an invalid operation). */
  refused: number;
  /** The first few refusals, for the log. */
  errorSamples: string[];
  requests: number;
  /** Date.now() when the first request was sent and the last reply arrived. */
  startedAtMs: number;
  endedAtMs: number;
}

/**
 * Sends each queue on its own connection. `acknowledgedBy` reads one parsed reply: how many
 * operations it acknowledged, or a string saying what was refused.
 */
export async function sendPresigned(
  url: string,
  queues: readonly (readonly string[])[],
  acknowledgedBy: (reply: unknown) => number | string,
): Promise<PresignedLoadResult> {
  const connections = await Promise.all(queues.map(() => openKeepAliveConnection(url)));
  const result: PresignedLoadResult = {
    acknowledged: 0,
    refused: 0,
    errorSamples: [],
    requests: 0,
    startedAtMs: Date.now(),
    endedAtMs: 0,
  };
  const refuse = (why: string) => {
    result.refused++;
    if (result.errorSamples.length < 5) result.errorSamples.push(why.slice(0, 300));
  };
  await Promise.all(
    queues.map(async (queue, index) => {
      const connection = connections[index]!;
      try {
        for (const body of queue) {
          const reply = await connection.post(body);
          result.requests++;
          if (reply.status !== 200) {
            refuse(`HTTP ${reply.status}: ${reply.body}`);
            continue;
          }
          const counted = acknowledgedBy(JSON.parse(reply.body));
          if (typeof counted === 'string') refuse(counted);
          else result.acknowledged += counted;
        }
      } finally {
        connection.close();
      }
    }),
  );
  result.endedAtMs = Date.now();
  return result;
}
