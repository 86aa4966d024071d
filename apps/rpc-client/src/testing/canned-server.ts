/**
 * Test double of a node: a real node:http server on a free loopback port that records every request
 * and answers with whatever the test's handler decides. Used by the SDK's own tests only.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: unknown;
  /** The body as sent. */
  text: string;
}

export type CannedHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  index: number,
) => unknown;

export interface CannedServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler for the next requests. */
  handle(handler: CannedHandler): void;
  close(): Promise<void>;
}

export function replyJson(response: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Answers `{jsonrpc, id: String(id), result}` the way chain-node does (the id as a string). */
export function replyResult(
  response: ServerResponse,
  request: RecordedRequest,
  result: unknown,
): void {
  const { id } = request.body as { id: number };
  replyJson(response, { jsonrpc: '2.0', id: String(id), result });
}

export async function startCannedServer(handler: CannedHandler): Promise<CannedServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded = { headers: req.headers, body: JSON.parse(text) as unknown, text };
      requests.push(recorded);
      void current(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    handle(next) {
      current = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
