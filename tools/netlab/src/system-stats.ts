/**
 * What the machine was doing while the lab measured: load average, CPU time of each node process
 * and of the lab itself (from /proc), and the delay relay's event-loop lag. Propagation outliers
 * are read against these (is it the CPU, the relay or the node?).
 */
import { readFile } from 'node:fs/promises';
import type { LabNode } from './lab-node';

/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

export interface SystemSample {
  at: number;
  load1: number;
  /** Busy share of all the host's cores over the last interval (every process, not only the lab's), %. */
  hostCpu: number;
  /** Resident memory of the running nodes together, MB. */
  nodesRssMb: number;
  /** CPU of each running node over the last interval, % of one core. */
  nodeCpu: Record<string, number>;
  /** CPU of the relay process (or of the lab, when the relay runs inside it), % of one core. */
  relayCpu: number;
  /** The relay's worst event-loop lag over the last interval, ms. */
  relayLagMaxMs: number;
}

export interface RelayLoad {
  /** CPU time (ms) the relay has used so far. */
  cpuMs(): Promise<number>;
  /** The relay's worst event-loop lag since the last call, ms. */
  takeLagMaxMs(): Promise<number>;
}

export async function processCpuMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces, inside parentheses).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / USER_HZ;
}

/** Busy and total jiffies of all cores since boot (/proc/stat's first line). */
async function hostJiffies(): Promise<{ busy: number; total: number } | undefined> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => undefined);
  const line = text?.split('\n')[0];
  if (line === undefined || !line.startsWith('cpu ')) return undefined;
  // user nice system idle iowait irq softirq steal: idle and iowait are the idle ones.
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - values[3]! - values[4]!, total };
}

/** Resident memory of a process, MB (/proc/PID/status VmRSS). */
export async function processRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/**
 * The host's busy share between two calls, %: the lab's processes and everyone else's. The
 * figures are judged against it (saturated at 100).
 */
export class HostCpu {
  private last: { busy: number; total: number } | undefined;

  async sample(): Promise<number> {
    const now = await hostJiffies();
    const before = this.last;
    this.last = now;
    if (now === undefined || before === undefined || now.total === before.total) return 0;
    return Math.round(((now.busy - before.busy) / (now.total - before.total)) * 100);
  }
}

async function load1(): Promise<number> {
  const text = await readFile('/proc/loadavg', 'utf8').catch(() => '0');
  return Number(text.split(' ')[0]);
}

/** Samples the machine every `everyMs` until stopped. */
export class SystemSampler {
  readonly samples: SystemSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last = new Map<string, number>();
  private lastAt = Date.now();
  private readonly host = new HostCpu();

  constructor(
    private readonly nodes: () => LabNode[],
    private readonly relay: RelayLoad,
    private readonly everyMs = 1000,
  ) {}

  start(): void {
    this.lastAt = Date.now();
    void this.host.sample();
    this.timer = setInterval(() => void this.sample(), this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Samples within [from, to). */
  between(from: number, to: number): SystemSample[] {
    return this.samples.filter((s) => s.at >= from && s.at < to);
  }

  private cpuPercent(key: string, cpuMs: number | undefined, elapsed: number): number {
    if (cpuMs === undefined) return 0;
    const before = this.last.get(key);
    this.last.set(key, cpuMs);
    return before === undefined ? 0 : Math.round(((cpuMs - before) / elapsed) * 100);
  }

  private async sample(): Promise<void> {
    const at = Date.now();
    const elapsed = Math.max(1, at - this.lastAt);
    this.lastAt = at;
    const hostCpu = await this.host.sample();
    const nodeCpu: Record<string, number> = {};
    let nodesRssMb = 0;
    for (const node of this.nodes()) {
      if (node.pid === undefined || !node.running) continue;
      nodeCpu[node.name] = this.cpuPercent(
        `${node.name}:${node.pid}`,
        await processCpuMs(node.pid),
        elapsed,
      );
      nodesRssMb += await processRssMb(node.pid);
    }
    const relayCpu = this.cpuPercent(
      'relay',
      await this.relay.cpuMs().catch(() => undefined),
      elapsed,
    );
    const relayLagMaxMs = await this.relay.takeLagMaxMs().catch(() => 0);
    this.samples.push({
      at,
      load1: await load1(),
      hostCpu,
      nodesRssMb,
      nodeCpu,
      relayCpu,
      relayLagMaxMs,
    });
  }
}

/** Summary of samples: mean load, mean CPU per node and of the relay, the relay's worst lag. */
export function summarize(samples: SystemSample[]): Record<string, unknown> {
  const mean = (values: number[]) =>
    values.length === 0
      ? 0
      : Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10;
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.nodeCpu)))].sort();
  return {
    load1_mean: mean(samples.map((s) => s.load1)),
    load1_max: Math.max(0, ...samples.map((s) => s.load1)),
    host_cpu_percent_mean: mean(samples.map((s) => s.hostCpu)),
    host_cpu_percent_max: Math.max(0, ...samples.map((s) => s.hostCpu)),
    nodes_rss_mb_max: Math.max(0, ...samples.map((s) => s.nodesRssMb)),
    node_cpu_percent_mean: Object.fromEntries(
      names.map((n) => [n, mean(samples.map((s) => s.nodeCpu[n] ?? 0))]),
    ),
    nodes_cpu_percent_total_mean: mean(
      samples.map((s) => Object.values(s.nodeCpu).reduce((a, b) => a + b, 0)),
    ),
    relay_cpu_percent_mean: mean(samples.map((s) => s.relayCpu)),
    relay_lag_max_ms: Math.max(0, ...samples.map((s) => s.relayLagMaxMs)),
    relay_lag_over_50ms_samples: samples.filter((s) => s.relayLagMaxMs > 50).length,
  };
}
