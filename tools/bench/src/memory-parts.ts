/**
 * Where a node's own memory (RssAnon) is, as the state grows (issue 45): V8's heap (used and
 * committed, from the node's Prometheus metrics), what malloc holds outside it (RssAnon less V8's
 * committed heap: LevelDB's memtables, block and table caches, the native modules, the arenas'
 * free space), glibc's main arena apart ([heap] in smaps), LevelDB's own estimate of its memory, and
 * the chain database's table files (each open one holds its index and filter block in memory).
 */
import { readdir, readFile } from 'node:fs/promises';

export interface MemoryParts {
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** glibc's main arena (the [heap] mapping's resident bytes). */
  mainArenaBytes: number;
  /** LevelDB's `leveldb.approximate-memory-usage` (memtables and block cache), when exported. */
  levelDbBytes: number | undefined;
  /** Entries in the state cache (accounts, numbers, spaces), when exported. */
  stateCacheEntries: number | undefined;
  /** The chain database's table files (.ldb). */
  tables: number;
}

/** A gauge's value in a Prometheus text exposition (the first sample of that name). */
export function metricValue(exposition: string, name: string): number | undefined {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(exposition);
  return match === null ? undefined : Number(match[1]);
}

async function mainArenaBytes(pid: number): Promise<number> {
  const smaps = await readFile(`/proc/${pid}/smaps`, 'utf8').catch(() => '');
  const at = smaps.search(/ \[heap\]\n/);
  if (at < 0) return 0;
  const rss = /^Rss:\s+(\d+) kB/m.exec(smaps.slice(at));
  return rss === null ? 0 : Number(rss[1]) * 1024;
}

async function tableFiles(chainDir: string): Promise<number> {
  const names = await readdir(chainDir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.ldb')).length;
}

/** The parts of the node `pid` serving metrics at `metricsUrl`, its chain database in `chainDir`. */
export async function readMemoryParts(
  pid: number,
  metricsUrl: string,
  chainDir: string,
): Promise<MemoryParts | undefined> {
  let exposition: string;
  try {
    exposition = await (await fetch(metricsUrl)).text();
  } catch {
    return undefined;
  }
  const value = (name: string) => metricValue(exposition, name);
  const stateCache = ['accounts', 'numbers', 'spaces'].map((kind) =>
    metricValue(exposition, `chain_state_cache_entries\\{kind="${kind}"\\}`),
  );
  return {
    heapUsedBytes: value('nodejs_heap_size_used_bytes') ?? 0,
    heapTotalBytes: value('nodejs_heap_size_total_bytes') ?? 0,
    externalBytes: value('nodejs_external_memory_bytes') ?? 0,
    mainArenaBytes: await mainArenaBytes(pid),
    levelDbBytes: value('chain_leveldb_memory_bytes'),
    stateCacheEntries: stateCache.every((n) => n !== undefined)
      ? stateCache.reduce((sum, n) => sum + n, 0)
      : undefined,
    tables: await tableFiles(chainDir),
  };
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** One line of the parts beside an interval's RssAnon. */
export function describeMemoryParts(parts: MemoryParts, anonBytes: number): string {
  return (
    `V8 heap ${mb(parts.heapUsedBytes)} used / ${mb(parts.heapTotalBytes)} MB committed, ` +
    `outside it ${mb(anonBytes - parts.heapTotalBytes)} MB (main arena ${mb(parts.mainArenaBytes)}, external ${mb(parts.externalBytes)}), ` +
    `LevelDB ${parts.levelDbBytes === undefined ? '?' : mb(parts.levelDbBytes)} MB, ${parts.tables} tables, ` +
    `state cache ${parts.stateCacheEntries ?? '?'} entries`
  );
}
