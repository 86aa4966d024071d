/**
 * The lab's Linux network: one namespace per node, each joined by a veth pair to one bridge in the
 * root namespace. Addresses are in 198.18.0.0/24 only (RFC 2544's benchmarking range): the bridge
 * is 198.18.0.1, node i's own address 198.18.0.(10+i), and its relay address (where the delay relay
 * accepts connections meant for node i, see relay.ts) 198.18.0.(100+i), on the bridge. The node
 * ports are isolated bridge ports: namespaces reach the root namespace (the relay, the lab's RPC
 * calls) but never each other directly, so every peer-to-peer byte goes through the relay.
 *
 * Every name starts with LAB_PREFIX: `removeLeftovers` deletes whatever a crashed run left behind.
 */
import { type ChildProcess, execFile, type StdioOptions, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const LAB_PREFIX = 'nlab-';
export const BRIDGE = `${LAB_PREFIX}br`;
export const SUBNET_BITS = 24;
export const BRIDGE_ADDRESS = '198.18.0.1';

/** Node i's (1-based) own address, inside its namespace. */
export function nodeAddress(i: number): string {
  return `198.18.0.${10 + i}`;
}

/** Where the relay accepts connections meant for node i (and dials from when node i dials). */
export function relayAddress(i: number): string {
  return `198.18.0.${100 + i}`;
}

export function namespaceName(i: number): string {
  return `${LAB_PREFIX}n${i}`;
}

/** Root-side end of node i's veth pair (on the bridge). */
/**
 * Runs the TypeScript entry `main` (with this process's Node flags, so that it loads as the lab
 * does) inside lab node `index`'s namespace, its plan as JSON in argv[2].
 */
export function spawnInNamespace(
  index: number,
  main: string,
  plan: object,
  stdio: StdioOptions,
): ChildProcess {
  return spawn(
    'ip',
    [
      'netns',
      'exec',
      namespaceName(index),
      process.execPath,
      ...process.execArgv,
      main,
      JSON.stringify(plan),
    ],
    { stdio },
  );
}

export function hostVeth(i: number): string {
  return `${LAB_PREFIX}v${i}`;
}

/** Namespace-side end of node i's veth pair. */
export function nodeVeth(i: number): string {
  return `${LAB_PREFIX}p${i}`;
}

export async function ip(...args: string[]): Promise<string> {
  const { stdout } = await run('ip', args);
  return stdout;
}

async function tc(...args: string[]): Promise<void> {
  await run('tc', args);
}

/** Why the lab cannot run here (not root, no `ip netns`), or undefined when it can. */
export async function labUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'the lab creates network namespaces: run it as root';
  try {
    await ip('netns', 'list');
  } catch (error) {
    return `\`ip netns\` is unavailable: ${(error as Error).message.split('\n')[0]}`;
  }
  return undefined;
}

/** Deletes every namespace and link named with LAB_PREFIX (a previous run's, or this one's). */
export async function removeLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  const namespaces = (await ip('netns', 'list'))
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => name.startsWith(LAB_PREFIX));
  for (const ns of namespaces) {
    await killNamespaceProcesses(ns);
    await ip('netns', 'delete', ns).catch(() => undefined);
    removed.push(ns);
  }
  const links = (await ip('-o', 'link', 'show'))
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => name?.startsWith(LAB_PREFIX) === true);
  for (const link of links) {
    await ip('link', 'delete', link).catch(() => undefined);
    removed.push(link);
  }
  return removed;
}

/** SIGKILLs what still runs in a lab namespace (a crashed run's nodes), before it is deleted. */
async function killNamespaceProcesses(ns: string): Promise<void> {
  const pids = (await ip('netns', 'pids', ns).catch(() => ''))
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export async function createBridge(): Promise<void> {
  await ip('link', 'add', BRIDGE, 'type', 'bridge');
  await ip('addr', 'add', `${BRIDGE_ADDRESS}/${SUBNET_BITS}`, 'dev', BRIDGE);
  await ip('link', 'set', BRIDGE, 'up');
}

/** Node i's namespace, veth pair on the bridge (isolated port), its address and relay address. */
export async function createNodeNamespace(i: number): Promise<void> {
  const ns = namespaceName(i);
  await ip('netns', 'add', ns);
  await ip('link', 'add', hostVeth(i), 'type', 'veth', 'peer', 'name', nodeVeth(i));
  await ip('link', 'set', nodeVeth(i), 'netns', ns);
  await ip('link', 'set', hostVeth(i), 'master', BRIDGE);
  await run('bridge', ['link', 'set', 'dev', hostVeth(i), 'isolated', 'on']);
  await ip('link', 'set', hostVeth(i), 'up');
  await ip('-n', ns, 'addr', 'add', `${nodeAddress(i)}/${SUBNET_BITS}`, 'dev', nodeVeth(i));
  await ip('-n', ns, 'link', 'set', nodeVeth(i), 'up');
  await ip('-n', ns, 'link', 'set', 'lo', 'up');
  await ip('addr', 'add', `${relayAddress(i)}/32`, 'dev', BRIDGE);
}

/** The caps in place: node number to kbit/s. */
const caps = new Map<number, number>();

/**
 * Caps node i's link to `kbit` kbit/s in both directions with a token bucket filter (`tc tbf`):
 * on the bridge side (what it downloads) and in its namespace (what it uploads).
 */
export async function capBandwidth(i: number, kbit: number): Promise<void> {
  const tbf = ['tbf', 'rate', `${kbit}kbit`, 'burst', '16kb', 'latency', '500ms'];
  await tc('qdisc', 'replace', 'dev', hostVeth(i), 'root', ...tbf);
  await inNamespace(i, 'tc', 'qdisc', 'replace', 'dev', nodeVeth(i), 'root', ...tbf);
  caps.set(i, kbit);
}

async function removeCap(i: number): Promise<void> {
  await tc('qdisc', 'del', 'dev', hostVeth(i), 'root');
  await inNamespace(i, 'tc', 'qdisc', 'del', 'dev', nodeVeth(i), 'root');
  caps.delete(i);
}

/** Runs `body` with every link at full speed, and puts the caps back after. */
export async function uncapped<T>(body: () => Promise<T>): Promise<T> {
  const saved = [...caps];
  for (const [i] of saved) await removeCap(i);
  try {
    return await body();
  } finally {
    for (const [i, kbit] of saved) await capBandwidth(i, kbit);
  }
}

async function inNamespace(i: number, ...command: string[]): Promise<void> {
  await run('ip', ['netns', 'exec', namespaceName(i), ...command]);
}

/**
 * Gives the lab (this process and, inherited, its nodes and relay) the scheduling priority `nice`.
 * On a machine shared with other work the figures should be the network's, not the neighbours':
 * with autogroup scheduling (Linux's default for sessions) a process's nice only counts inside its
 * session, so the session's autogroup gets the same nice, and its own back when this process exits
 * (the rest of the session, a shell or CI job, must not keep it).
 */
export async function raisePriority(nice: number): Promise<void> {
  setPriority(nice);
  const before = /nice\s+(-?\d+)/.exec(await readFile(AUTOGROUP, 'utf8').catch(() => ''))?.[1];
  if (before === undefined) return;
  try {
    await writeFile(AUTOGROUP, String(nice));
  } catch {
    return; // no autogroup scheduling here: the process nice is all there is
  }
  process.once('exit', () => {
    try {
      writeFileSync(AUTOGROUP, before);
    } catch {
      // the session is gone
    }
  });
}

const AUTOGROUP = '/proc/self/autogroup';
