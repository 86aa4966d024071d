/**
 * The late joiner as a host of its own. The lab's processes share this machine's cores, where real
 * hosts each have theirs; during the late joiner's scenario the joiner gets the last core to itself
 * and every other lab process (the other nodes, the relay, the lab) the rest. Its yardstick,
 * `chain-node import` of the same blocks, runs on that same core just before it starts: the sync
 * and the local import are measured on the same host, under the same network load.
 */
import { execFile, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';

export interface HostCpus {
  /** The late joiner's core (taskset's list syntax). */
  own: string;
  /** The cores of every other lab process meanwhile. */
  others: string;
  /** Every core: the affinity given back after the scenario. */
  all: string;
}

/** The split of this machine's cores, or undefined with fewer than two or without `taskset`. */
export function hostCpus(): HostCpus | undefined {
  const cores = availableParallelism();
  if (cores < 2 || spawnSync('taskset', ['--version']).status !== 0) return undefined;
  const last = cores - 1;
  return { own: String(last), others: last === 1 ? '0' : `0-${last - 1}`, all: `0-${last}` };
}

/** Sets the CPU affinity of every thread of each process in `pids`. */
export async function setAffinity(pids: number[], cpus: string): Promise<void> {
  await Promise.all(
    pids.map((pid) => promisify(execFile)('taskset', ['-a', '-p', '-c', cpus, String(pid)])),
  );
}

/** `command args` run on `cpus` only (through taskset), or as is without them. */
export function onCpus(
  cpus: string | undefined,
  command: string,
  args: string[],
): [string, string[]] {
  return cpus === undefined ? [command, args] : ['taskset', ['-c', cpus, command, ...args]];
}
