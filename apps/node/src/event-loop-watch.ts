import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from './logger';

/**
 * A hold of the event loop worth a warning: RPC, gossip, push and the producer's own timer all
 * waited this long (issue 44 item 4 keeps every step of a block under 50 ms; five times that is
 * a defect to report, or a machine far too loaded for the node).
 */
export const EVENT_LOOP_WARN_MS = 250;
const CHECK_EVERY_MS = 10_000;
const WARN_AT_MOST_EVERY_MS = 60_000;
/**
 * Milliseconds between the samples of the delay histogram (a native timer: no JS runs for it, but
 * each one wakes the thread). It records the intervals between its samples: a hold of H ms shows
 * as H to H + RESOLUTION_MS. At 10 ms the wake-ups alone cost an otherwise idle process 4.3-8.6
 * ms of CPU a second, about half of what an idle node costs (30 lab nodes on 2 cores: 7-13% of
 * the host); at 50 ms 1.2-2.6 (docs/performance.md, issue 43 session 25).
 */
export const RESOLUTION_MS = 50;

/**
 * Warns (at most once a minute) with the longest hold of the event loop since the last check when
 * it passed EVENT_LOOP_WARN_MS. Returns a stop function; the timer does not keep the process alive.
 * The metrics' `nodejs_eventloop_lag_max_seconds` (--metrics) gives the same measure to scrape.
 */
export function watchEventLoop(
  log: Logger,
  checkEveryMs = CHECK_EVERY_MS,
  histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS }),
): () => void {
  histogram.enable();
  let warnedAt = Number.NEGATIVE_INFINITY;
  const timer = setInterval(() => {
    // The histogram's delays are in ns: the interval between two samples, the resolution included.
    const holdMs = histogram.max / 1e6;
    histogram.reset();
    if (holdMs < EVENT_LOOP_WARN_MS || Date.now() - warnedAt < WARN_AT_MOST_EVERY_MS) return;
    warnedAt = Date.now();
    log.warn(
      { holdMs: Math.round(holdMs) },
      'the event loop was held: RPC calls, gossip and block production waited that long',
    );
  }, checkEveryMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    histogram.disable();
  };
}
