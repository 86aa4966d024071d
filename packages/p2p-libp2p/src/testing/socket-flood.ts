import { spawn } from 'node:child_process';

export interface SocketFloodOptions {
  /** Local addresses the sockets come from, used in turn (127.0.0.x). */
  from: readonly string[];
  host: string;
  port: number;
  count: number;
  /** Pause between two connects (0: all at once). */
  intervalMs?: number;
  /** Random bytes each socket writes once connected (0: it writes nothing and waits). */
  garbageBytes?: number;
  /** Bytes each socket writes first, before its random ones. */
  prefix?: readonly number[];
  /** How long each socket is held open, unless the node closes it first. */
  holdMs: number;
}

export interface SocketFate {
  from: string;
  /** Still open when it was let go. */
  held: boolean;
  /** Ms from connect to the node closing it (when it did). */
  closedAfterMs?: number;
}

/**
 * The hostile process: a separate Node process that opens raw TCP sockets to a node's P2P port
 * (optionally writing garbage), holds them, and reports which ones the node closed. It speaks no
 * libp2p at all: what it sends is never a valid handshake.
 */
const SCRIPT = `
const net = require('node:net');
const { randomBytes } = require('node:crypto');
const o = JSON.parse(process.argv[1]);
const fates = [];
let done = 0;
let settled = 0;
function settle() { if (++settled === o.count) process.stdout.write('ready\\n'); }
function finish() { if (++done === o.count) { process.stdout.write(JSON.stringify(fates)); process.exit(0); } }
function open(i) {
  const from = o.from[i % o.from.length];
  const fate = { from, held: false };
  fates[i] = fate;
  const start = Date.now();
  let over = false;
  let connected = false;
  const end = (held) => {
    if (over) return;
    over = true;
    if (!connected) settle();
    fate.held = held;
    if (!held) fate.closedAfterMs = Date.now() - start;
    socket.destroy();
    finish();
  };
  const socket = net.connect({ host: o.host, port: o.port, localAddress: from }, () => {
    connected = true;
    settle();
    const bytes = Buffer.concat([Buffer.from(o.prefix), randomBytes(o.garbageBytes)]);
    if (bytes.length > 0) socket.write(bytes);
  });
  socket.on('data', () => {});
  socket.on('error', () => end(false));
  socket.on('close', () => end(false));
  setTimeout(() => end(true), o.holdMs);
}
for (let i = 0; i < o.count; i++) {
  if (o.intervalMs > 0) setTimeout(() => open(i), i * o.intervalMs); else open(i);
}
`;

export interface SocketFlood {
  /** Every socket has connected (or failed to). */
  ready: Promise<void>;
  /** The fate of each socket, once all were let go or closed. */
  done: Promise<SocketFate[]>;
}

export function startSocketFlood(options: SocketFloodOptions): SocketFlood {
  const args = JSON.stringify({ intervalMs: 0, garbageBytes: 0, prefix: [], ...options });
  const child = spawn(process.execPath, ['-e', SCRIPT, args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = deferred<void>();
  const done = deferred<SocketFate[]>();
  // A child that hangs must not hang the test.
  const limitMs = options.holdMs + options.count * (options.intervalMs ?? 0) + 15_000;
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('ready\n')) ready.resolve();
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  child.on('error', (error) => {
    ready.reject(error);
    done.reject(error);
  });
  child.on('exit', (code) => {
    clearTimeout(killer);
    if (code !== 0) {
      const error = new Error(`socket flood exited with ${code}: ${err}`);
      ready.reject(error);
      done.reject(error);
      return;
    }
    ready.resolve();
    done.resolve(JSON.parse(out.slice(out.indexOf('\n') + 1)) as SocketFate[]);
  });
  // Awaited by the test through `done`; a rejection of `ready` alone is not unhandled.
  ready.promise.catch(() => undefined);
  return { ready: ready.promise, done: done.promise };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const heldCount = (fates: readonly SocketFate[]) => fates.filter((f) => f.held).length;
