import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRequest } from './raw-http';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../../..');
export const CHAIN_NODE_BIN = join(repoRoot, 'apps/node/bin/chain-node.js');

export interface NodeProcess {
  readonly url: string;
  readonly datadir: string;
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (or the given signal) and wait for the exit; resolves with the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartNodeOptions {
  args?: string[];
  env?: Record<string, string>;
  datadir?: string;
  /** Keep the data directory after stop (for restart tests). */
  keepDatadir?: boolean;
  readyTimeoutMs?: number;
  /** The RPC port (default 0: a free one, which a restart would not get again). */
  rpcPort?: number;
}

export async function makeDatadir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'chain-e2e-'));
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

/** Run the chain-node binary and return its output once it exits (for CLI tests). */
export function runChainNode(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CHAIN_NODE_BIN, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `chain-node ${args.join(' ')} did not exit within ${options.timeoutMs ?? 15_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * Start a real chain-node process on free ports (RPC port 0: the node prints the one it got) with a
 * temporary data directory, and wait until its JSON-RPC answers.
 */
export async function startNode(options: StartNodeOptions = {}): Promise<NodeProcess> {
  const datadir = options.datadir ?? (await makeDatadir());
  const args = [
    'start',
    '--datadir',
    datadir,
    '--rpc-port',
    String(options.rpcPort ?? 0),
    '--p2p-port',
    '0',
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, [CHAIN_NODE_BIN, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolveExit) => {
    child.on('exit', (code, signal) => resolveExit(code ?? signal ?? 'unknown'));
  });

  const url = await waitForUrl(
    () => stdout,
    exited,
    options.readyTimeoutMs ?? 15_000,
    () => stderr,
  );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const result = await exited;
    if (!options.keepDatadir && !options.datadir)
      await rm(datadir, { recursive: true, force: true });
    return result;
  };
  return { url, datadir, child, stdout: () => stdout, stderr: () => stderr, stop };
}

async function waitForUrl(
  stdout: () => string,
  exited: Promise<number | string>,
  timeoutMs: number,
  stderr: () => string,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void exited.then((code) => {
    exitedWith = code;
  });
  while (Date.now() < deadline) {
    const match = /JSON-RPC\s+(http:\/\/\S+)/.exec(stdout());
    if (match) return match[1]!;
    if (exitedWith !== undefined) {
      throw new Error(
        `chain-node exited (${exitedWith}) before serving:\n${stdout()}\n${stderr()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`chain-node did not start within ${timeoutMs} ms:\n${stdout()}\n${stderr()}`);
}

/** One raw HTTP POST, for protocol tests that must see exactly what the server sends. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers };
}

export interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
}

/** A JSON-RPC call that returns the whole reply object. */
export async function rpc(
  url: string,
  method: string,
  params?: unknown,
  id: unknown = 1,
): Promise<RpcReply> {
  const { json } = await post(url, JSON.stringify({ jsonrpc: '2.0', method, params, id }));
  return json as RpcReply;
}

/**
 * A JSON-RPC call sent from the loopback address `from` (127.0.0.2, 127.0.0.3, ...), so that the
 * node sees it come from another client than the other calls of a test.
 */
export async function rpcFrom(
  from: string,
  url: string,
  method: string,
  params?: unknown,
): Promise<RpcReply> {
  const body = JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 });
  const { text } = await rawRequest(url, { body, localAddress: from });
  return JSON.parse(text) as RpcReply;
}

/** A JSON-RPC call that returns the result or throws the error. */
export async function call<T = unknown>(url: string, method: string, params?: unknown): Promise<T> {
  const reply = await rpc(url, method, params);
  if (reply.error) {
    throw Object.assign(new Error(`${method}: ${reply.error.message}`), reply.error);
  }
  return reply.result as T;
}
