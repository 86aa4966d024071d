/**
 * The ceiling for RPC throughput: the least work a node:http JSON-RPC server can do per call (read the
 * body, JSON.parse it, answer `{"jsonrpc":"2.0","id":"<id>","result":0}` per call, batches included).
 * chain-node's figures are reported as a ratio of this server's, measured in the same run with the
 * same load, so the ratio says what chain-node's own code costs on this machine.
 *
 * Run as a child process (createBareJsonRpcServerProcess) so it gets its own core, like the node.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { firstMessage, forkTypeScript, stopChild } from '../ts-child-process.js';

interface JsonRpcCall {
  id?: unknown;
}

function answer(call: JsonRpcCall): string {
  // The id comes back as a string, as chain-node answers it (SPEC protocol rule 3).
  return `{"jsonrpc":"2.0","id":${JSON.stringify(String(call.id))},"result":0}`;
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let text: string;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
        | JsonRpcCall
        | JsonRpcCall[];
      text = Array.isArray(parsed) ? `[${parsed.map(answer).join(',')}]` : answer(parsed);
    } catch {
      text = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  });
}

/** The bare server, in this process. */
export function createBareJsonRpcServer(): Server {
  return createServer({ keepAliveTimeout: 60_000 }, handle);
}

export interface BareJsonRpcServerProcess {
  /** Forks the server and resolves once it listens. */
  start(): Promise<void>;
  /** `http://127.0.0.1:<port>/`; valid after start(). */
  readonly url: string;
  readonly pid: number | undefined;
  /** Stops the child; idempotent. */
  close(): Promise<void>;
}

/** Port report of the child to its parent. */
interface ListeningMessage {
  port: number;
}

export function createBareJsonRpcServerProcess(): BareJsonRpcServerProcess {
  let child: ChildProcess | undefined;
  let url: string | undefined;
  return {
    async start() {
      if (child !== undefined) throw new Error('the bare JSON-RPC server is already started');
      child = forkTypeScript(fileURLToPath(import.meta.url), { args: ['--serve'] });
      const { port } = await firstMessage<ListeningMessage>(child, 'the bare JSON-RPC server');
      url = `http://127.0.0.1:${port}/`;
    },
    get url() {
      if (url === undefined) throw new Error('the bare JSON-RPC server is not started');
      return url;
    },
    get pid() {
      return child?.pid;
    },
    async close() {
      if (child !== undefined) await stopChild(child);
    },
  };
}

function serveAsChild(): void {
  const server = createBareJsonRpcServer();
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ port } satisfies ListeningMessage);
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--serve')) {
  serveAsChild();
}
