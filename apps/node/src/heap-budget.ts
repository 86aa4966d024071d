/**
 * The node's heap budget (issue 8: RSS under 400 MB on a small server).
 *
 * V8 sizes a process's heap from the machine's memory (4 GiB on a 24 GiB machine) and, given that
 * room, lets garbage pile up to several times the live data before it collects: the node's RSS
 * then follows the machine, not the chain. The limit must be set when an isolate is created
 * (`v8.setFlagsFromString('--max-old-space-size=…')` at run time leaves it unchanged), so
 * `chain-node start` runs the node on a worker thread whose isolate gets the budget as its
 * `resourceLimits`; the main thread only relays SIGINT/SIGTERM and the exit code.
 *
 * A worker rather than re-executing node with `--max-old-space-size`: it stays one process, so the
 * pid a supervisor or test holds is the node's (SIGKILL kills the node, nothing is orphaned still
 * holding the data directory, RSS read by pid is the node's). The second isolate costs ~15 MB of
 * RSS at rest; a second process would cost a whole Node runtime (~40 MB).
 *
 * The main thread stays bare while the node runs (`launchCli`, the executable's entry): which
 * thread runs `start`, under which budget, only the CLI's own parsing can say (flags, CHAIN_*
 * variables, a --config file), and the modules that parsing loads (yargs, the catalogue, the other
 * commands: ~15 MB) would stay loaded for good on the thread that loaded them. So a command line
 * that may be `start` is parsed first on a placement thread that only reports where the node goes
 * and exits, taking its modules with it.
 */
import {
  isMainThread,
  parentPort,
  type ResourceLimits,
  Worker,
  workerData,
} from 'node:worker_threads';

/**
 * Keeps RSS under 300 MB with 100,000 accounts and 100,000 token holders in state while a million
 * operations stream through (issue 20 item 5, issue 8's 400 MB before it; `npm run bench -- --only
 * memory`). The live heap is then about 80-100 MB; V8 lets garbage fill the old generation toward
 * the budget, and the Node binary, the young generation (heap-budget.ts), LevelDB and buffers add
 * about 100 MB beside it. 240 rather than 256 since the signature cache stopped keeping the last
 * 262,144 mined operations (10-21 MB of heap): what 256 held before still fits. A larger state
 * needs a larger budget: past it the node stops with a message naming --max-heap-mb.
 */
export const DEFAULT_MAX_HEAP_MB = 240;

/** Signals the node stops on gracefully; the main thread hands them on to the worker. */
const RELAYED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** What the budget thread's workerData carries (and how the worker knows it is one). */
interface BudgetWorkerData {
  chainNodeHeapBudget: true;
  stdoutIsTTY: boolean;
  /** The budget the thread runs under (its old generation's limit). */
  maxHeapMb: number;
  /**
   * Started before the command line was parsed, under the default budget (launchCli): the thread
   * is the placement thread too, and runs the node only if its parse agrees.
   */
  guessed?: { columns: number | undefined };
}

/** What the placement thread's workerData carries (and how the worker knows it is one). */
interface PlacementWorkerData {
  chainNodePlacement: true;
  stdoutIsTTY: boolean;
  /** The terminal's width, for the help text the placement thread may print. */
  columns: number | undefined;
}

/** The placement thread's one message: where the command runs, and the node's budget. */
type PlacementReport =
  | { placement: 'budget-thread'; maxHeapMb: number }
  | { placement: 'main-thread' };

interface SignalMessage {
  signal: (typeof RELAYED_SIGNALS)[number];
}

/** A heap size flag of the user's, in node's own arguments or NODE_OPTIONS (V8 takes - or _). */
const HEAP_SIZE_FLAG = /(?:^|\s)--max[-_]old[-_]space[-_]size(?:[=\s]|$)/;

/** True when the user sized V8's heap themselves (`node --max-old-space-size=…`, NODE_OPTIONS). */
export function userSizedHeap(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  return execArgv.some((arg) => HEAP_SIZE_FLAG.test(arg)) || HEAP_SIZE_FLAG.test(nodeOptions ?? '');
}

/**
 * Where `chain-node start` runs the node: 'budget-thread' starts a worker under the budget (main
 * thread, a budget, no heap flag of the user's); 'here' runs it on this thread (no budget, the
 * user's flag rules, or this is the budget thread already).
 */
export function nodePlacement(input: {
  maxHeapMb: number;
  isMainThread: boolean;
  execArgv: readonly string[];
  nodeOptions: string | undefined;
}): 'budget-thread' | 'here' {
  if (!input.isMainThread || input.maxHeapMb <= 0) return 'here';
  return userSizedHeap(input.execArgv, input.nodeOptions) ? 'here' : 'budget-thread';
}

/**
 * The budget thread's young generation: semispaces of 8 MB (V8 takes a third of it for each of the
 * two and rounds to a power of two) instead of V8's 16 MB. Under a write load both grow to their
 * most and stay resident, so this takes 16 MB off the node's RSS for about 2-7% more CPU per sendTo
 * (more frequent scavenges; docs/performance.md, "RSS"). Under the burst (issue 44) 48 MB halves the
 * scavenges and mark-compacts, but the memory run then peaked at 305 and 318 MB, past issue 20's
 * 300 MB (docs/performance.md, "Issue 44 item 4 and the burst: what the slow polls wait on").
 */
export const YOUNG_GENERATION_MB = 24;

/** The worker's isolate limits: the old generation is the budget, the young one is capped. */
export function heapLimits(maxHeapMb: number): ResourceLimits {
  return { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
}

function isBudgetWorker(data: unknown): data is BudgetWorkerData {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as BudgetWorkerData).chainNodeHeapBudget === true
  );
}

function isPlacementWorker(data: unknown): data is PlacementWorkerData {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as PlacementWorkerData).chainNodePlacement === true
  );
}

/**
 * Bytes the old generation of this thread may hold: the budget on the budget thread (V8's
 * heap_size_limit adds the young generation to it), else undefined (V8's own limit applies: a
 * --max-old-space-size of the user's, or the machine's).
 */
export function heapBudgetBytes(): number | undefined {
  return !isMainThread && isBudgetWorker(workerData) ? workerData.maxHeapMb * 2 ** 20 : undefined;
}

/** True on the placement thread: the CLI there parses and reports, it runs no command. */
export function onPlacementThread(): boolean {
  return !isMainThread && isPlacementWorker(workerData);
}

/** True on a budget thread started on a guess (launchCli), which places the command itself. */
function onGuessedBudgetThread(): boolean {
  return !isMainThread && isBudgetWorker(workerData) && workerData.guessed !== undefined;
}

/**
 * Call before the CLI parses: on the placement thread, its stdout looks like the main thread's
 * (a terminal, that wide), so the help and errors it prints read as the main thread's would.
 */
export function adoptMainTerminal(): void {
  if (isMainThread) return;
  const terminal = isPlacementWorker(workerData)
    ? workerData
    : isBudgetWorker(workerData) && workerData.guessed !== undefined
      ? { stdoutIsTTY: workerData.stdoutIsTTY, columns: workerData.guessed.columns }
      : undefined;
  if (terminal === undefined) return;
  if (terminal.stdoutIsTTY) Object.defineProperty(process.stdout, 'isTTY', { value: true });
  if (terminal.columns !== undefined) {
    Object.defineProperty(process.stdout, 'columns', { value: terminal.columns });
  }
}

/**
 * The CLI's entry on the main thread. A command line without `start` in it runs here as before
 * (`call`, `init`: one isolate, nothing else). One with it is parsed first on a placement thread
 * (the CLI at `cli`, which calls runOnBudgetThread in `start` and placeCommand for the others):
 * the node then runs on a budget thread started from this bare main thread, or, without a budget
 * or for another command, the CLI is loaded here. Help, version and refused arguments are printed
 * by the placement thread, and its exit code is the process's.
 */
export async function launchCli(cli: URL, argv: readonly string[]): Promise<void> {
  if (!argv.includes('start')) {
    await import(cli.href);
    return;
  }
  // Most starts run under the default budget: the budget thread is started at once on that guess,
  // and its own parse of the command line places the command (runOnBudgetThread, placeCommand),
  // reporting back only when the guess was wrong. A right guess saves the placement thread's
  // start, the CLI's modules loaded and parsed once more (docs/performance.md, "The process's own
  // start"); a wrong one costs what the placement thread always did.
  if (!userSizedHeap(process.execArgv, process.env.NODE_OPTIONS)) {
    const guess = await runWorker(DEFAULT_MAX_HEAP_MB, cli, {
      columns: process.stdout.columns,
    });
    if (guess.report === undefined) process.exit(guess.code);
    await placeReported(guess.report, cli);
    return;
  }
  const { report, code } = await runPlacementWorker(cli, argv);
  if (report === undefined) process.exit(code);
  await placeReported(report, cli);
}

/** Runs the command where a placement report says. */
async function placeReported(report: PlacementReport, cli: URL): Promise<void> {
  if (report.placement === 'budget-thread') {
    process.exit((await runWorker(report.maxHeapMb, cli)).code);
  }
  await import(cli.href);
}

function runPlacementWorker(
  cli: URL,
  argv: readonly string[],
): Promise<{ report: PlacementReport | undefined; code: number }> {
  const data: PlacementWorkerData = {
    chainNodePlacement: true,
    stdoutIsTTY: process.stdout.isTTY === true,
    columns: process.stdout.columns,
  };
  const worker = new Worker(cli, { argv: [...argv], workerData: data });
  let report: PlacementReport | undefined;
  let failed = false;
  worker.on('message', (message: PlacementReport) => {
    report = message;
  });
  worker.on('error', (error: Error) => {
    failed = true;
    process.stderr.write(`${error.stack ?? String(error)}\n`);
  });
  return new Promise((resolve) =>
    worker.on('exit', (code) => resolve({ report, code: failed && code === 0 ? 1 : code })),
  );
}

/** On the placement thread: reports where the command runs and ends the thread. */
function reportPlacement(report: PlacementReport): never {
  parentPort!.postMessage(report);
  process.exit(0);
}

/**
 * Called by the CLI before any command other than `start` runs: on the placement thread it runs
 * none (the main thread runs it, as it would have without a placement thread); elsewhere nothing.
 */
export function placeCommand(): void {
  if (onPlacementThread() || onGuessedBudgetThread()) {
    reportPlacement({ placement: 'main-thread' });
  }
}

/**
 * Call first in `start`. On the main thread with a budget, runs `script` (this CLI) with the same
 * arguments on a worker thread under the budget and exits with the worker's exit code: it resolves
 * true only in the sense that the node ran elsewhere (the process exits first). On that worker it
 * makes relayed signals reach `process.on(signal)` listeners and resolves false, as it does when
 * the node runs on the main thread. On the placement thread it reports where the node goes and
 * ends that thread (launchCli then starts the budget thread, or loads the CLI on the main thread).
 */
export async function runOnBudgetThread(maxHeapMb: number, script: string | URL): Promise<boolean> {
  if (isPlacementWorker(workerData) && !isMainThread) {
    const placement = nodePlacement({
      maxHeapMb,
      isMainThread: true,
      execArgv: process.execArgv,
      nodeOptions: process.env.NODE_OPTIONS,
    });
    reportPlacement(
      placement === 'budget-thread' ? { placement, maxHeapMb } : { placement: 'main-thread' },
    );
  }
  if (!isMainThread && isBudgetWorker(workerData) && workerData.guessed !== undefined) {
    // Started on a guess: run here only if the budget this parse found is the one guessed.
    const placement = nodePlacement({
      maxHeapMb,
      isMainThread: true,
      execArgv: process.execArgv,
      nodeOptions: process.env.NODE_OPTIONS,
    });
    if (placement !== 'budget-thread') reportPlacement({ placement: 'main-thread' });
    if (maxHeapMb !== workerData.maxHeapMb) reportPlacement({ placement, maxHeapMb });
  }
  if (!isMainThread) {
    if (isBudgetWorker(workerData)) receiveRelayedSignals(workerData);
    return false;
  }
  const placement = nodePlacement({
    maxHeapMb,
    isMainThread,
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
  });
  if (placement === 'here') return false;
  const { code } = await runWorker(maxHeapMb, script);
  process.exit(code);
}

function receiveRelayedSignals(data: BudgetWorkerData): void {
  // Pretty logs when the user's terminal is the output, as on the main thread.
  if (data.stdoutIsTTY) Object.defineProperty(process.stdout, 'isTTY', { value: true });
  const port = parentPort;
  if (port === null) return;
  port.on('message', (message: SignalMessage) => {
    if (RELAYED_SIGNALS.includes(message?.signal)) process.emit(message.signal, message.signal);
  });
  // The port alone does not keep the node alive (its server and timers do).
  port.unref();
}

/**
 * Runs `script` on a budget thread; resolves with its exit code and, for a thread started on a
 * guess (`guessed`), the placement it reported instead of running the command.
 */
function runWorker(
  maxHeapMb: number,
  script: string | URL,
  guessed?: BudgetWorkerData['guessed'],
): Promise<{ code: number; report: PlacementReport | undefined }> {
  const data: BudgetWorkerData = {
    chainNodeHeapBudget: true,
    stdoutIsTTY: process.stdout.isTTY === true,
    maxHeapMb,
    ...(guessed ? { guessed } : {}),
  };
  // Worker takes a path or a URL object, not a file:// string (import.meta.url is one).
  const entry = typeof script === 'string' && script.startsWith('file:') ? new URL(script) : script;
  const worker = new Worker(entry, {
    argv: process.argv.slice(2),
    workerData: data,
    resourceLimits: heapLimits(maxHeapMb),
  });
  const relay = (signal: SignalMessage['signal']) =>
    worker.postMessage({ signal } satisfies SignalMessage);
  for (const signal of RELAYED_SIGNALS) process.on(signal, relay);
  let report: PlacementReport | undefined;
  if (guessed !== undefined) {
    worker.on('message', (message: PlacementReport) => {
      report = message;
    });
  }
  return new Promise((resolve) => {
    let failed = false;
    worker.on('error', (error: Error & { code?: string }) => {
      failed = true;
      process.stderr.write(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `chain-node: the node needs more than its heap budget of ${maxHeapMb} MB; start it with a larger --max-heap-mb (0: no budget, V8's own limit)\n`
          : `${error.stack ?? String(error)}\n`,
      );
    });
    worker.on('exit', (code) => {
      // The signals are the process's own again (a command placed on this thread after a guess).
      for (const signal of RELAYED_SIGNALS) process.off(signal, relay);
      resolve({ code: failed && code === 0 ? 1 : code, report });
    });
  });
}
