/**
 * What a node's garbage collector did, from V8's `--trace-gc-nvp` lines on its stdout (one line per
 * collection, every isolate of the process): bytes allocated and time paused. Allocation does not
 * depend on what else runs on the machine, so bytes allocated per operation compare two builds
 * where rates and even CPU times are noisy.
 */

export interface GcTotals {
  /** Bytes allocated since the node started (each collection says what was allocated since the last). */
  allocatedBytes: number;
  /** Milliseconds the isolates were paused by collections. */
  pauseMs: number;
  collections: number;
}

/** The node flag that makes V8 print the lines this reads. */
export const GC_TRACE_FLAG = '--trace-gc-nvp';

const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: pause=([\d.]+) .*\ballocated=(\d+)\b/;

/** Adds up the collections of `--trace-gc-nvp` output fed to it chunk by chunk. */
export class GcTally {
  private readonly sum: GcTotals = { allocatedBytes: 0, pauseMs: 0, collections: 0 };
  private partial = '';

  /** `onLine` is given each collection's line as it is read (e.g. to log it with the time seen). */
  constructor(private readonly onLine?: (line: string) => void) {}

  /** Feeds output; returns it without the collector's lines (what the node itself printed). */
  feed(chunk: string): string {
    const text = this.partial + chunk;
    const end = text.lastIndexOf('\n');
    this.partial = end < 0 ? text : text.slice(end + 1);
    if (end < 0) return '';
    const kept: string[] = [];
    for (const line of text.slice(0, end).split('\n')) {
      const match = GC_LINE.exec(line);
      if (match === null) kept.push(line);
      else {
        this.onLine?.(line);
        this.sum.pauseMs += Number(match[1]);
        this.sum.allocatedBytes += Number(match[2]);
        this.sum.collections++;
      }
    }
    return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  }

  totals(): GcTotals {
    return { ...this.sum };
  }
}

/** Allocation and collector pause per operation between two readings, as text for the log. */
export function gcPerOperation(
  before: GcTotals | undefined,
  after: GcTotals | undefined,
  operations: number,
): string {
  if (before === undefined || after === undefined || operations === 0) return 'GC not traced';
  const kb = (after.allocatedBytes - before.allocatedBytes) / 1024 / operations;
  const pauseUs = ((after.pauseMs - before.pauseMs) * 1000) / operations;
  return `${kb.toFixed(1)} KB allocated and ${pauseUs.toFixed(1)} us of GC pause per operation`;
}
