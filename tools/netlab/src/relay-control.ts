/**
 * Control of the delay relay (relay.ts), wherever it runs: in its own process (the default, so that
 * the lab's RPC load and bookkeeping never stall the links: relay-main.ts) or inside the lab's
 * process (`--relay inline`, to compare). Every call resolves once the relay applied it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  createRelay,
  type RelayLink,
  type RelayLinkDelay,
  type RelayOptions,
  type RelayStats,
} from './relay';
import { processCpuMs } from './system-stats';

export type RelayMode = 'process' | 'inline';

/** What relay-main.ts is started with (the address functions are the lab's fixed plan). */
export interface RelayPlan {
  nodes: number[];
  port: number;
  delay: RelayLinkDelay;
}

export type RelayCommand =
  | { cmd: 'start' }
  | { cmd: 'partition'; groups: number[][] }
  | { cmd: 'heal' }
  | { cmd: 'isolate'; node: number }
  | { cmd: 'setDelay'; delay: RelayLinkDelay }
  | { cmd: 'stats' }
  | { cmd: 'links' }
  | { cmd: 'lag' }
  | { cmd: 'close' };

export interface RelayControl {
  readonly mode: RelayMode;
  start(): Promise<void>;
  /** Cuts every link between a node of one group and a node of another. */
  partition(groups: number[][]): Promise<void>;
  heal(): Promise<void>;
  isolate(i: number): Promise<void>;
  setDelay(delay: RelayLinkDelay): Promise<void>;
  stats(): Promise<RelayStats>;
  /** The links open now that the dialled node answered on (RelayLink). */
  links(): Promise<RelayLink[]>;
  /** CPU time (ms) of the process the relay runs in. */
  cpuMs(): Promise<number>;
  /** The process the relay runs in (this one when inline), once started. */
  pid(): number | undefined;
  /** The worst event-loop lag of the relay's process since the last call, ms. */
  takeLagMaxMs(): Promise<number>;
  close(): Promise<void>;
}

/** Event-loop lag of this process: the worst delay of a 10 ms timer since the last take. */
export function lagMeter(): { take(): number; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    take() {
      const max = histogram.max / 1e6;
      histogram.reset();
      return Math.round(Number.isFinite(max) ? max : 0);
    },
    stop: () => histogram.disable(),
  };
}

/** Runs one command on a relay; the relay process and the inline control share it. */
export async function applyCommand(
  relay: ReturnType<typeof createRelay>,
  lag: { take(): number },
  command: RelayCommand,
): Promise<unknown> {
  switch (command.cmd) {
    case 'start':
      return relay.start();
    case 'partition':
      return relay.partition(command.groups);
    case 'heal':
      return relay.heal();
    case 'isolate':
      return relay.isolate(command.node);
    case 'setDelay':
      return relay.setDelay(command.delay);
    case 'stats':
      return relay.stats();
    case 'links':
      return relay.links();
    case 'lag':
      return lag.take();
    case 'close':
      return relay.close();
  }
}

function inlineRelay(options: RelayOptions): RelayControl {
  const relay = createRelay(options);
  const lag = lagMeter();
  const run = (command: RelayCommand) => applyCommand(relay, lag, command);
  return {
    mode: 'inline',
    start: async () => {
      await run({ cmd: 'start' });
    },
    partition: async (groups) => {
      await run({ cmd: 'partition', groups });
    },
    heal: async () => {
      await run({ cmd: 'heal' });
    },
    isolate: async (node) => {
      await run({ cmd: 'isolate', node });
    },
    setDelay: async (delay) => {
      await run({ cmd: 'setDelay', delay });
    },
    stats: async () => relay.stats(),
    links: async () => relay.links(),
    pid: () => process.pid,
    cpuMs: async () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    },
    takeLagMaxMs: async () => lag.take(),
    close: async () => {
      lag.stop();
      await relay.close();
    },
  };
}

/** The relay in a child process (relay-main.ts), driven over the IPC channel. */
function processRelay(plan: RelayPlan): RelayControl {
  let child: ChildProcess | undefined;
  let closing = false;
  let nextId = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const send = (command: RelayCommand): Promise<unknown> => {
    if (child === undefined || child.exitCode !== null || !child.connected) {
      return Promise.reject(new Error('the relay process is not running'));
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      // With a callback, a channel that closed under us (the relay exiting) rejects this command
      // instead of emitting an 'error' the lab would die of (before its report and its cleanup).
      child!.send({ id, command }, (error) => {
        if (error === null || !waiting.has(id)) return;
        waiting.delete(id);
        reject(error);
      });
    });
  };
  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  return {
    mode: 'process',
    async start() {
      const main = fileURLToPath(new URL('./relay-main.ts', import.meta.url));
      child = fork(main, [JSON.stringify(plan)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
        const w = waiting.get(message.id);
        if (w === undefined) return;
        waiting.delete(message.id);
        if (message.error !== undefined) w.reject(new Error(message.error));
        else w.resolve(message.result);
      });
      child.on('exit', (code, signal) => {
        if (!closing) console.error(`[netlab] the relay process exited (${signal ?? code})`);
        failAll(new Error(`the relay process exited (${signal ?? code})`));
      });
      child.on('error', (error) => console.error(`[netlab] relay process: ${error.message}`));
      await send({ cmd: 'start' });
    },
    partition: async (groups) => {
      await send({ cmd: 'partition', groups });
    },
    heal: async () => {
      await send({ cmd: 'heal' });
    },
    isolate: async (node) => {
      await send({ cmd: 'isolate', node });
    },
    setDelay: async (delay) => {
      await send({ cmd: 'setDelay', delay });
    },
    stats: async () => (await send({ cmd: 'stats' })) as RelayStats,
    links: async () => (await send({ cmd: 'links' })) as RelayLink[],
    pid: () => child?.pid,
    cpuMs: async () => {
      const ms = child?.pid === undefined ? undefined : await processCpuMs(child.pid);
      if (ms === undefined) throw new Error('no relay process');
      return ms;
    },
    takeLagMaxMs: async () => (await send({ cmd: 'lag' })) as number,
    async close() {
      if (child === undefined || child.exitCode !== null) return;
      closing = true;
      const exited = new Promise((done) => child!.once('exit', done));
      await send({ cmd: 'close' }).catch(() => undefined);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function createRelayControl(
  mode: RelayMode,
  plan: RelayPlan,
  addresses: Pick<RelayOptions, 'nodeAddress' | 'relayAddress'>,
): RelayControl {
  return mode === 'inline' ? inlineRelay({ ...plan, ...addresses }) : processRelay(plan);
}
