/**
 * Preloaded into the chain-node process (`node --import <this file>`) when a benchmark is run with
 * BENCH_NODE_HEAP_PROF=<dir>: samples every allocation, kept or collected, through the in-process
 * inspector, and writes the sampling heap profile (`heap-<pid>-<thread>.heapprofile`, one per thread: the node runs on worker threads, open in DevTools or
 * summarise with heap-profile-summary.ts) into <dir> when the node exits. Unlike `node --heap-prof`,
 * which keeps only the objects still alive at exit, this counts the bytes the write path allocates
 * and the collector then frees: the figure that costs GC time. Plain JavaScript so the node needs no
 * TypeScript loader; BENCH_NODE_HEAP_PROF_INTERVAL is the mean bytes between samples (default 32768).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const dir = process.env.BENCH_NODE_HEAP_PROF;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(process.env.BENCH_NODE_HEAP_PROF_INTERVAL ?? 32_768),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // The in-process session answers synchronously, so the profile is written before the process ends.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) throw error;
      writeFileSync(
        join(dir, `heap-${process.pid}-${threadId}.heapprofile`),
        JSON.stringify(result.profile),
      );
    });
  });
}
