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
  /** glibc's thread arenas (LevelDB's and libuv's threads): resident bytes, and how many. */
  threadArenaBytes: number;
  threadArenas: number;
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

/** glibc's thread arenas are heaps of 64 MiB reserved at a 64 MiB boundary (HEAP_MAX_SIZE). */
const ARENA_HEAP_BYTES = 64 * 2 ** 20;

interface Mapping {
  start: number;
  end: number;
  name: string;
  rssBytes: number;
}

function mappings(smaps: string): Mapping[] {
  const out: Mapping[] = [];
  for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+[ \t]*(.*)$/m.exec(block);
    const rss = /^Rss:\s+(\d+) kB/m.exec(block);
    if (head === null || rss === null) continue;
    out.push({
      start: Number.parseInt(head[1]!, 16),
      end: Number.parseInt(head[2]!, 16),
      name: head[3]!.trim(),
      rssBytes: Number(rss[1]) * 1024,
    });
  }
  return out;
}

/**
 * The main arena ([heap]) and the thread arenas: anonymous memory starting at a 64 MiB boundary
 * whose extent, alone (full heaps) or with the reserved (no access) rest that follows it, is a whole
 * number of 64 MiB heaps (an arena's full heap and the next one's used part can be one mapping).
 */
async function arenas(
  pid: number,
): Promise<Pick<MemoryParts, 'mainArenaBytes' | 'threadArenaBytes' | 'threadArenas'>> {
  const maps = mappings(await readFile(`/proc/${pid}/smaps`, 'utf8').catch(() => ''));
  let threadArenaBytes = 0;
  let threadArenas = 0;
  for (let i = 0; i < maps.length; i++) {
    const map = maps[i]!;
    if (map.name !== '' || map.start % ARENA_HEAP_BYTES !== 0) continue;
    const rest = maps[i + 1];
    const end =
      rest !== undefined && rest.start === map.end && rest.name === '' ? rest.end : map.end;
    const whole = (bytes: number) => bytes % ARENA_HEAP_BYTES === 0;
    if (!whole(map.end - map.start) && !whole(end - map.start)) continue;
    threadArenaBytes += map.rssBytes;
    threadArenas++;
  }
  const main = maps.find((map) => map.name === '[heap]');
  return { mainArenaBytes: main?.rssBytes ?? 0, threadArenaBytes, threadArenas };
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
    ...(await arenas(pid)),
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
    `outside it ${mb(anonBytes - parts.heapTotalBytes)} MB (malloc: main arena ${mb(parts.mainArenaBytes)}, ${parts.threadArenas} thread arenas ${mb(parts.threadArenaBytes)}; external ${mb(parts.externalBytes)}), ` +
    `LevelDB ${parts.levelDbBytes === undefined ? '?' : mb(parts.levelDbBytes)} MB, ${parts.tables} tables, ` +
    `state cache ${parts.stateCacheEntries ?? '?'} entries`
  );
}
