import { type NodeProcess, type StartNodeOptions, startNode } from './node-process';

/**
 * The ledger's test-only crash switch (packages/ledger/src/chain/storage/store.ts): the node kills itself
 * with SIGKILL at its k-th storage write point, counted from process start; `:after` makes it die
 * just after that write is durable instead of just before it.
 */
export const CRASH_SWITCH_ENV = 'LEDGER_TEST_CRASH_AT_WRITE';

export interface CrashPoint {
  /** 1-based write point, counted from process start. */
  write: number;
  /** Die after the write is durable (true) or just before it reaches the database. */
  after: boolean;
}

export function crashSwitchValue(point: CrashPoint): string {
  return `${point.write}${point.after ? ':after' : ''}`;
}

/**
 * Starts a node armed with the crash switch. A node that reaches its crash point while starting
 * (genesis, journal replay) never serves: that comes back as 'died-starting'.
 */
export async function startArmed(
  point: CrashPoint,
  options: StartNodeOptions & { datadir: string },
): Promise<NodeProcess | 'died-starting'> {
  try {
    return await startNode({
      ...options,
      env: { ...options.env, [CRASH_SWITCH_ENV]: crashSwitchValue(point) },
    });
  } catch (error) {
    if (/exited \(SIGKILL\) before serving/.test((error as Error).message)) return 'died-starting';
    throw error;
  }
}

/** Resolves once the process is gone (true), or after `timeoutMs` while it still runs (false). */
export async function exitWithin(node: NodeProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (node.child.exitCode === null && node.child.signalCode === null) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** A small seeded generator (mulberry32), so a failing crash run can be repeated from its seed. */
export function seededRandom(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(unit * below);
  };
}
