/**
 * Anvil (Foundry's local Ethereum node, from the npm package @foundry-rs/anvil-linux-amd64) as a
 * child process on a free port, for the peer comparison: its dev accounts funded from the default
 * mnemonic, automine (every transaction mined on arrival), logs off.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { freePorts } from '../free-ports.js';

/** Anvil's default mnemonic: its dev accounts are m/44'/60'/0'/0/i of it. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const ANVIL_CHAIN_ID = 31337n;

export interface AnvilOptions {
  /** Funded dev accounts (Anvil's --accounts). */
  accounts: number;
  /** How long start() waits for eth_blockNumber to answer. */
  readyTimeoutMs: number;
}

export const DEFAULT_ANVIL_OPTIONS: AnvilOptions = { accounts: 10, readyTimeoutMs: 30_000 };

export interface AnvilProcess {
  start(): Promise<void>;
  /** `http://127.0.0.1:<port>/`; valid after start(). */
  readonly url: string;
  readonly pid: number | undefined;
  /** One JSON-RPC call; throws on a JSON-RPC error. */
  call<T>(method: string, params?: unknown[]): Promise<T>;
  close(): Promise<void>;
}

/** The anvil executable of the npm package. */
export function anvilBinary(): string {
  return createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
}

export function createAnvilProcess(options: Partial<AnvilOptions> = {}): AnvilProcess {
  const settings = { ...DEFAULT_ANVIL_OPTIONS, ...options };
  let child: ChildProcess | undefined;
  let url: string | undefined;
  let output = '';
  let exited: Promise<void> | undefined;
  let nextId = 1;

  async function call<T>(method: string, params: unknown[] = []): Promise<T> {
    if (url === undefined) throw new Error('anvil is not started');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    const reply = (await response.json()) as { result?: T; error?: { message?: string } };
    if (reply.error !== undefined) {
      throw new Error(`anvil ${method}: ${reply.error.message ?? JSON.stringify(reply.error)}`);
    }
    return reply.result as T;
  }

  return {
    async start() {
      if (child !== undefined) throw new Error('anvil is already started');
      const [port] = await freePorts(1);
      url = `http://127.0.0.1:${port}/`;
      child = spawn(
        anvilBinary(),
        [
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--accounts',
          String(settings.accounts),
          '--quiet',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      // Anvil logs every request and block at info level: read and dropped but the last lines.
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-8192);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      const running = child;
      exited = new Promise((resolve) => running.once('exit', () => resolve()));
      const deadline = Date.now() + settings.readyTimeoutMs;
      for (;;) {
        if (running.exitCode !== null) throw new Error(`anvil exited at start-up:\n${output}`);
        try {
          await call<string>('eth_blockNumber');
          return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`anvil did not answer:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    get url() {
      if (url === undefined) throw new Error('anvil is not started');
      return url;
    },
    get pid() {
      return child?.pid;
    },
    call,
    async close() {
      if (child === undefined || child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
