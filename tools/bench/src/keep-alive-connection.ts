/**
 * One keep-alive HTTP/1.1 connection that POSTs a body and reads the reply, one request at a time,
 * straight on a TCP socket. A load generator built on node:http's client spends several times more
 * CPU per request than the servers it measures; on a 2-core machine that CPU is taken from the
 * server, so the load process keeps its own per-request work as small as autocannon's.
 *
 * It understands exactly what the servers under test send: a status line, headers with
 * Content-Length (or a 204 without a body), and `Connection: close`. Chunked replies are refused.
 */
import { connect, type Socket } from 'node:net';

export interface HttpReply {
  status: number;
  body: string;
  /** The server asked to close the connection after this reply. */
  close: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** The reply in `buffer` once it is complete: with how many bytes it took, else undefined. */
export function parseReply(buffer: Buffer): { reply: HttpReply; length: number } | undefined {
  const headerEnd = buffer.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = buffer.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) {
    throw new Error(`not an HTTP/1.x reply: ${JSON.stringify(head.slice(0, 40))}`);
  }
  if (/\r\ntransfer-encoding:/i.test(head)) throw new Error('chunked replies are not supported');
  const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const bodyLength = lengthMatch === null ? 0 : Number(lengthMatch[1]);
  if (lengthMatch === null && status !== 204 && status !== 304) {
    throw new Error(`HTTP ${status} reply without content-length`);
  }
  const length = headerEnd + HEADER_END.length + bodyLength;
  if (buffer.length < length) return undefined;
  return {
    reply: {
      status,
      body: buffer.toString('utf8', headerEnd + HEADER_END.length, length),
      close: /\r\nconnection:\s*close/i.test(head),
    },
    length,
  };
}

export interface KeepAliveConnection {
  /** POSTs `body` (JSON) and resolves with the reply; rejects when the connection fails. */
  post(body: string): Promise<HttpReply>;
  /** Closes the socket; idempotent. */
  close(): void;
  /** False once the socket closed or failed (open a new connection then). */
  readonly usable: boolean;
}

/** Opens a connection to an `http://host:port/path` URL. */
export async function openKeepAliveConnection(url: string): Promise<KeepAliveConnection> {
  const { hostname, port, pathname, host } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port || 80) });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const prefix = `POST ${pathname || '/'} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: `;
  let buffer: Buffer = Buffer.alloc(0);
  let waiting: { resolve: (reply: HttpReply) => void; reject: (error: Error) => void } | undefined;
  let usable = true;

  const fail = (error: Error) => {
    usable = false;
    socket.destroy();
    const current = waiting;
    waiting = undefined;
    current?.reject(error);
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let parsed: ReturnType<typeof parseReply>;
    try {
      parsed = parseReply(buffer);
    } catch (error) {
      fail(error as Error);
      return;
    }
    if (parsed === undefined) return;
    buffer = buffer.subarray(parsed.length);
    if (parsed.reply.close) {
      usable = false;
      socket.end();
    }
    const current = waiting;
    waiting = undefined;
    if (current === undefined) fail(new Error('reply without a request'));
    else current.resolve(parsed.reply);
  });
  socket.on('error', (error) => fail(error));
  socket.on('close', () => fail(new Error('connection closed by the server')));

  return {
    post(body) {
      if (!usable) return Promise.reject(new Error('the connection is closed'));
      if (waiting !== undefined) return Promise.reject(new Error('one request at a time'));
      return new Promise<HttpReply>((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(`${prefix}${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
    },
    close() {
      usable = false;
      socket.destroy();
    },
    get usable() {
      return usable;
    },
  };
}
