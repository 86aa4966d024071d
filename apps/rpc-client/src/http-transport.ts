/**
 * One JSON POST with a timeout and, for retriable calls only, retries on transient failures.
 * Uses the global fetch only, so it runs unchanged in Node 20 and browsers.
 */
import { crossOriginHint } from './cross-origin.js';
import { TimeoutError, TransportError } from './errors.js';

interface HttpTransportOptions {
  url: string;
  timeoutMs: number;
  headers: Readonly<Record<string, string>>;
  retries: number;
  retryDelayMs: number;
  fetch: typeof fetch;
}

/** HTTP statuses that say "try again later" rather than "this request is wrong". */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface HttpReply {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
}

export interface HttpTransport {
  /** POSTs `body`; `retryable` allows retries (only ever true for idempotent reads). */
  post(body: string, retryable: boolean): Promise<HttpReply>;
}

export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  // The URL as shown in messages: never with credentials.
  const shownUrl = describeUrl(options.url);

  async function postOnce(body: string): Promise<HttpReply> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await options.fetch(options.url, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json' },
        body,
        signal: controller.signal,
      });
      text = await response.text();
    } catch (error) {
      if (controller.signal.aborted) {
        throw new TimeoutError(
          `no reply from ${shownUrl} within ${options.timeoutMs} ms`,
          options.timeoutMs,
        );
      }
      throw new TransportError(
        'NETWORK',
        `request to ${shownUrl} failed: ${describe(error)}${corsHint(error, options.url)}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed };
  }

  function isTransient(error: unknown): boolean {
    if (!(error instanceof TransportError)) return false;
    if (error.reason === 'HTTP_STATUS') return TRANSIENT_STATUSES.has(error.status ?? 0);
    return error.reason === 'NETWORK' || error.reason === 'TIMEOUT';
  }

  async function postChecked(body: string): Promise<HttpReply> {
    const reply = await postOnce(body);
    // A JSON-RPC reply is the node's answer whatever the status; any other body with an error
    // status is an HTTP failure (bad credentials, body too large, a proxy's 502, ...).
    if ((reply.status < 200 || reply.status > 299) && !looksLikeJsonRpc(reply.body)) {
      throw new TransportError('HTTP_STATUS', `HTTP ${reply.status} from ${shownUrl}`, {
        status: reply.status,
      });
    }
    return reply;
  }

  return {
    async post(body, retryable) {
      const attempts = retryable ? 1 + options.retries : 1;
      for (let attempt = 1; ; attempt++) {
        try {
          const reply = await postChecked(body);
          // The node's 408 (REQUEST_TIMEOUT, a JSON-RPC body): the request did not reach it whole
          // in time, so nothing ran (seen from a node starting on a loaded machine).
          if (reply.status !== 408 || attempt >= attempts) return reply;
        } catch (error) {
          if (attempt >= attempts || !isTransient(error)) throw error;
        }
        await sleep(options.retryDelayMs * 2 ** (attempt - 1));
      }
    },
  };
}

function looksLikeJsonRpc(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every(looksLikeJsonRpc);
  return (
    typeof body === 'object' && body !== null && (body as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}

function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the node';
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports the useful part (ECONNREFUSED, ...) in the cause of "fetch failed".
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** A browser's fetch failure is a bare TypeError (no cause): it may be a CORS refusal. */
function corsHint(error: unknown, url: string): string {
  return error instanceof TypeError && error.cause === undefined ? crossOriginHint(url) : '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
