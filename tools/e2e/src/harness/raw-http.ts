import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

/** host and port of a node URL. */
export function endpoint(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

/** A raw TCP connection to the node, open once the promise resolves. */
export function openSocket(url: string): Promise<Socket> {
  const { host, port } = endpoint(url);
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The head of a JSON-RPC POST whose body is still to come (`length` bytes declared). */
export function postHead(url: string, length: number): string {
  const { host, port } = endpoint(url);
  return `POST / HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
}

/**
 * Writes `text` one byte every `intervalMs` until it is all sent or the socket closes; resolves with
 * the number of bytes written.
 */
export async function trickle(
  socket: Socket,
  text: string,
  intervalMs: number,
  stop: () => boolean,
): Promise<number> {
  let sent = 0;
  while (sent < text.length && !socket.destroyed && !stop()) {
    socket.write(text[sent]!);
    sent++;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return sent;
}

/** Resident memory of a process in bytes (Linux /proc). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Milliseconds `task` takes. */
export async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await task();
  return { ms: performance.now() - started, value };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request on a fresh connection, any header allowed (Host and Origin included), from
 * `localAddress` when given (127.0.0.2, 127.0.0.3, ...: the node sees another client).
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    localAddress?: string;
  } = {},
): Promise<RawReply> {
  const { host, port } = endpoint(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host,
        port,
        path: '/',
        method: options.method ?? 'POST',
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Writes `text` on a fresh connection and resolves with everything the server sends until it closes. */
export async function rawExchange(url: string, text: string): Promise<string> {
  const socket = await openSocket(url);
  return new Promise((resolve) => {
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.write(text);
  });
}
