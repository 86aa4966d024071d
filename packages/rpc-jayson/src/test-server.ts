/**
 * Test support (not exported): a real server on an ephemeral port and a raw node:http client that
 * can send any method, header (Host included) and body.
 */
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { CreateRpcServerOptions, RpcServer } from './options.js';
import { createRpcServer } from './server.js';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, undefined when empty. */
  json: unknown;
}

export interface TestServer {
  server: RpcServer;
  port: number;
  url: string;
  /** A raw HTTP request; POST with Content-Type application/json unless told otherwise. */
  http(
    body?: string,
    options?: { method?: string; headers?: OutgoingHttpHeaders },
  ): Promise<HttpReply>;
  /** One JSON-RPC call; returns the response object. */
  call(method: string, params?: unknown, id?: unknown): Promise<Record<string, unknown>>;
}

function httpCall(
  port: number,
  body: string | undefined,
  options: { method?: string; headers?: OutgoingHttpHeaders } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: options.method ?? 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: text === '' ? undefined : JSON.parse(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function startTestServer(
  options: Partial<CreateRpcServerOptions> = {},
): Promise<TestServer> {
  const server = createRpcServer({ handlers: {}, ...options, port: 0 });
  const { port, url } = await server.start();
  const http: TestServer['http'] = (body, httpOptions) => httpCall(port, body, httpOptions);
  return {
    server,
    port,
    url,
    http,
    async call(method, params, id = 1) {
      const reply = await http(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
      return reply.json as Record<string, unknown>;
    },
  };
}

/** A valid-shaped wallet address (checksum is not the server's business). */
export function walletOf(digit: string): string {
  return `CH${digit.repeat(46)}`;
}
