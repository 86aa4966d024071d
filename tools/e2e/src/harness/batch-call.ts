import { post } from './node-process';

export interface BatchReply {
  id: string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
}

/**
 * Many calls in JSON-RPC batches (at most `size` per HTTP request); the replies in call order.
 * Throws when a call fails.
 */
export async function callBatch<T = unknown>(
  url: string,
  calls: ReadonlyArray<{ method: string; params?: unknown }>,
  size = 500,
): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < calls.length; start += size) {
    const chunk = calls.slice(start, start + size);
    const body = chunk.map((call, i) => ({ jsonrpc: '2.0', id: i, ...call }));
    const { json } = await post(url, JSON.stringify(body));
    const replies = json as BatchReply[];
    if (!Array.isArray(replies) || replies.length !== chunk.length) {
      throw new Error(
        `batch of ${chunk.length} answered with ${JSON.stringify(json).slice(0, 200)}`,
      );
    }
    for (let i = 0; i < chunk.length; i++) {
      const reply = replies[i]!;
      if (reply.error) {
        throw new Error(`${chunk[i]!.method}: ${reply.error.message} (${reply.error.code})`);
      }
      results.push(reply.result as T);
    }
  }
  return results;
}
