/**
 * Samples the resident set size of another process (the node under test) at a fixed interval:
 * /proc/<pid>/status on Linux, `ps -o rss=` elsewhere.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Resident set size of `pid` in bytes, or undefined when the process is gone. */
export async function readRss(pid: number): Promise<number | undefined> {
  if (process.platform === 'linux') {
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      return match === null ? undefined : Number(match[1]) * 1024;
    } catch {
      return undefined;
    }
  }
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], (error, stdout) => {
      const kib = Number(stdout.trim());
      resolve(error !== null || !Number.isFinite(kib) || kib === 0 ? undefined : kib * 1024);
    });
  });
}

/** Where a process's resident memory is: anonymous (heaps) and file-backed (code, mapped files). */
export interface ResidentParts {
  rssBytes: number;
  anonBytes: number;
  fileBytes: number;
}

/** The parts of `pid`'s RSS (Linux only: /proc/<pid>/status); undefined elsewhere or when gone. */
export async function readResidentParts(pid: number): Promise<ResidentParts | undefined> {
  if (process.platform !== 'linux') return undefined;
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match === null ? undefined : Number(match[1]) * 1024;
  };
  const [rssBytes, anonBytes, fileBytes] = [kib('VmRSS'), kib('RssAnon'), kib('RssFile')];
  if (rssBytes === undefined || anonBytes === undefined || fileBytes === undefined)
    return undefined;
  return { rssBytes, anonBytes, fileBytes };
}

export interface RssSummary {
  maxBytes: number;
  lastBytes: number;
  samples: number;
  /**
   * The largest anonymous part of a sample (the process's own memory: heaps, buffers), without
   * file-backed pages such as LevelDB's memory-mapped table files, which the kernel reclaims; 0
   * where /proc does not tell (not Linux).
   */
  maxAnonBytes: number;
  /** The largest file-backed part of a sample (code, mapped files); 0 where /proc does not tell. */
  maxFileBytes: number;
}

export interface RssSampler {
  /** The largest sample so far (0 before the first). */
  readonly maxBytes: number;
  readonly lastBytes: number;
  /** Stops sampling (after one last sample) and returns the summary. */
  stop(): Promise<RssSummary>;
}

/** Starts sampling `pid` every `intervalMs` (one sample at once). */
export function sampleRss(pid: number, intervalMs: number): RssSampler {
  let maxBytes = 0;
  let maxAnonBytes = 0;
  let maxFileBytes = 0;
  let lastBytes = 0;
  let samples = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const take = () => {
    inFlight = inFlight.then(async () => {
      const parts = await readResidentParts(pid);
      const rss = parts?.rssBytes ?? (await readRss(pid));
      if (rss === undefined) return;
      samples++;
      lastBytes = rss;
      if (rss > maxBytes) maxBytes = rss;
      if (parts !== undefined && parts.anonBytes > maxAnonBytes) maxAnonBytes = parts.anonBytes;
      if (parts !== undefined && parts.fileBytes > maxFileBytes) maxFileBytes = parts.fileBytes;
    });
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    get maxBytes() {
      return maxBytes;
    },
    get lastBytes() {
      return lastBytes;
    },
    async stop() {
      clearInterval(timer);
      take();
      await inFlight;
      return { maxBytes, lastBytes, samples, maxAnonBytes, maxFileBytes };
    },
  };
}
