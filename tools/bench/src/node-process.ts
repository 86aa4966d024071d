/**
 * A chain-node child process on free ports with its own data directory, for benchmarks: started the
 * way an operator starts it (`chain-node start ...`), ready once getBlockCount answers, stopped with
 * SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ChainClient, createClient } from '@chain/rpc-client';
import { freePorts } from './free-ports.js';
import { GC_TRACE_FLAG, GcTally, type GcTotals } from './gc-trace.js';

/** The node-side half of heapProfileDir, by URL so the node finds it from any working directory. */
const HEAP_SAMPLING_PRELOAD = new URL('./heap-sampling-preload.mjs', import.meta.url).href;

export interface NodeProcessOptions {
  /** Data directory; default: a fresh temporary directory, removed by close(). */
  datadir?: string;
  /** Extra command-line arguments after `start --datadir ... --rpc-port ... --p2p-port ...`. */
  args: readonly string[];
  /** Extra environment variables. */
  env: Readonly<Record<string, string>>;
  /** The chain-node executable script; default: the workspace's apps/node/bin/chain-node.js. */
  bin?: string;
  /** How long start() waits for getBlockCount to answer. */
  readyTimeoutMs: number;
  /** How long close() waits after SIGTERM before SIGKILL. */
  stopTimeoutMs: number;
  /** Keep a temporary data directory after close(), e.g. to inspect it. */
  keepDatadir: boolean;
  /**
   * Write a V8 CPU profile of the node (`node --cpu-prof`) into this directory when it exits.
   * Default: the BENCH_NODE_CPU_PROF environment variable, so any benchmark can be profiled (not
   * CHAIN_*: chain-node reads those as its own options).
   */
  cpuProfileDir?: string;
  /**
   * Write a sampling heap profile of every byte the node allocates (collected or not) into this
   * directory when it exits (heap-sampling-preload.mjs). Default: BENCH_NODE_HEAP_PROF.
   */
  heapProfileDir?: string;
  /**
   * Append everything the node writes to stdout and stderr (but the GC trace's lines) to this file,
   * kept after close(): its last lines say why a node that exited did (its heap budget, a crash).
   * Default: the BENCH_NODE_OUTPUT environment variable; output() keeps only the last 64 KiB.
   */
  outputFile?: string;
  /**
   * Append each of the collector's lines to this file, after the wall-clock time (ms since the
   * epoch) it was read at, so that a collection can be matched with what a client saw then (the
   * burst's slow polls; tools/bench/src/slow-polls.ts). Needs traceGc. Default: the
   * BENCH_NODE_GC_LOG environment variable.
   */
  gcLogFile?: string;
  /**
   * Trace the node's garbage collections (`--trace-gc-nvp`) and add them up: gcTotals(). On by
   * default: a line per collection costs the node nothing measurable.
   */
  traceGc: boolean;
}

export const DEFAULT_NODE_PROCESS_OPTIONS = {
  args: [],
  env: {},
  readyTimeoutMs: 30_000,
  stopTimeoutMs: 10_000,
  keepDatadir: false,
  traceGc: true,
} as const satisfies Partial<NodeProcessOptions>;

export interface NodeProcess {
  /** Spawns the node and resolves once its RPC answers getBlockCount. */
  start(): Promise<void>;
  /** SIGTERM (SIGKILL after stopTimeoutMs), then removes a temporary datadir. Idempotent. */
  close(): Promise<void>;
  readonly rpcUrl: string;
  readonly rpcPort: number;
  readonly p2pPort: number;
  readonly datadir: string;
  readonly pid: number | undefined;
  /** A client of this node's RPC. */
  readonly client: ChainClient;
  /** The process's stdout and stderr so far (the last 64 KiB). */
  output(): string;
  /** The node's collections so far; undefined unless traceGc. */
  gcTotals(): GcTotals | undefined;
  /** How the process ended, once it has. */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

const OUTPUT_LIMIT = 64 * 1024;
const POLL_INTERVAL_MS = 100;

function defaultBin(): string {
  const manifest = createRequire(import.meta.url).resolve('chain-node/package.json');
  return join(dirname(manifest), 'bin', 'chain-node.js');
}

export function createNodeProcess(options: Partial<NodeProcessOptions> = {}): NodeProcess {
  const settings = { ...DEFAULT_NODE_PROCESS_OPTIONS, ...options };
  let child: ChildProcess | undefined;
  let ports: { rpc: number; p2p: number } | undefined;
  let datadir = settings.datadir;
  let ownsDatadir = false;
  let client: ChainClient | undefined;
  let output = '';
  let exit: NodeProcess['exit'];
  let exited: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let outputFile: WriteStream | undefined;

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the chain-node process is not started (${what})`);
    return value;
  };

  let gcLog: WriteStream | undefined;
  const gc = settings.traceGc
    ? new GcTally((line) => gcLog?.write(`${Date.now()} ${line}\n`))
    : undefined;
  const keep = (text: string) => {
    output = (output + text).slice(-OUTPUT_LIMIT);
    outputFile?.write(text);
  };
  const record = (chunk: Buffer) => keep(chunk.toString('utf8'));
  const recordStdout = (chunk: Buffer) => {
    if (gc === undefined) record(chunk);
    else keep(gc.feed(chunk.toString('utf8')));
  };

  const failure = (message: string) =>
    new Error(`${message}\n--- chain-node output (last lines) ---\n${tail(output, 40)}`);

  async function waitUntilReady(node: ChainClient): Promise<void> {
    const deadline = Date.now() + settings.readyTimeoutMs;
    for (;;) {
      if (exit !== undefined) {
        throw failure(
          `chain-node exited during start-up (code ${exit.code}, signal ${exit.signal})`,
        );
      }
      try {
        const height = await node.block.getBlockCount();
        if (Number.isInteger(height)) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw failure(
          `chain-node did not answer getBlockCount within ${settings.readyTimeoutMs} ms`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  }

  async function stop(): Promise<void> {
    if (child !== undefined && exit === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), settings.stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    }
    if (outputFile !== undefined) {
      const file = outputFile;
      outputFile = undefined;
      await new Promise<void>((resolve) => file.end(resolve));
    }
    if (gcLog !== undefined) {
      const file = gcLog;
      gcLog = undefined;
      await new Promise<void>((resolve) => file.end(resolve));
    }
    if (ownsDatadir && !settings.keepDatadir && datadir !== undefined) {
      await rm(datadir, { recursive: true, force: true });
    }
  }

  return {
    async start() {
      if (child !== undefined) throw new Error('the chain-node process is already started');
      const [rpc, p2p] = await freePorts(2);
      ports = { rpc, p2p };
      if (datadir === undefined) {
        datadir = await mkdtemp(join(tmpdir(), 'chain-node-bench-'));
        ownsDatadir = true;
      }
      const profileDir = settings.cpuProfileDir ?? process.env.BENCH_NODE_CPU_PROF;
      const heapProfileDir = settings.heapProfileDir ?? process.env.BENCH_NODE_HEAP_PROF;
      const outputPath = settings.outputFile ?? process.env.BENCH_NODE_OUTPUT;
      if (outputPath) outputFile = createWriteStream(outputPath, { flags: 'a' });
      const gcLogPath = settings.gcLogFile ?? process.env.BENCH_NODE_GC_LOG;
      if (gcLogPath) gcLog = createWriteStream(gcLogPath, { flags: 'a' });
      const args = [
        ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
        ...(heapProfileDir ? ['--import', HEAP_SAMPLING_PRELOAD] : []),
        ...(settings.traceGc ? [GC_TRACE_FLAG] : []),
        settings.bin ?? defaultBin(),
        'start',
        '--datadir',
        datadir,
        '--rpc-port',
        String(rpc),
        '--p2p-port',
        String(p2p),
        ...settings.args,
      ];
      child = spawn(process.execPath, args, {
        env: {
          ...process.env,
          ...settings.env,
          ...(heapProfileDir ? { BENCH_NODE_HEAP_PROF: heapProfileDir } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', recordStdout);
      child.stderr?.on('data', record);
      exited = new Promise((resolve) => {
        child?.once('exit', (code, signal) => {
          exit = { code, signal };
          resolve();
        });
        child?.once('error', (error) => {
          record(Buffer.from(`spawn failed: ${error.message}\n`));
          exit ??= { code: null, signal: null };
          resolve();
        });
      });
      client = createClient({
        url: `http://127.0.0.1:${rpc}/`,
        timeoutMs: 5_000,
        retries: 0,
      });
      try {
        await waitUntilReady(client);
      } catch (error) {
        await stop();
        throw error;
      }
    },
    close() {
      closing ??= stop();
      return closing;
    },
    get rpcUrl() {
      return `http://127.0.0.1:${started(ports, 'rpcUrl').rpc}/`;
    },
    get rpcPort() {
      return started(ports, 'rpcPort').rpc;
    },
    get p2pPort() {
      return started(ports, 'p2pPort').p2p;
    },
    get datadir() {
      return started(datadir, 'datadir');
    },
    gcTotals() {
      return gc?.totals();
    },
    get pid() {
      return child?.pid;
    },
    get client() {
      return started(client, 'client');
    },
    output: () => output,
    get exit() {
      return exit;
    },
  };
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}
