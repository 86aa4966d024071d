import { describe, expect, it } from 'vitest';
import { EVENT_LOOP_WARN_MS, RESOLUTION_MS, watchEventLoop } from './event-loop-watch';
import type { Logger } from './logger';

function recordingLog(warnings: unknown[]): Logger {
  return { warn: (obj: unknown) => warnings.push(obj) } as unknown as Logger;
}

/** Holds the event loop: no callback runs until `ms` passed. */
function holdFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('event loop watch', () => {
  it('warns once with the longest hold when the loop was held past the bound', async () => {
    const warnings: Array<{ holdMs: number }> = [];
    // Checked less often than the histogram samples (a check that ran before the sample after a
    // hold would reset it first), after its first sample (the one that starts its intervals).
    const checkMs = 4 * RESOLUTION_MS;
    const stop = watchEventLoop(recordingLog(warnings), checkMs);
    await tick(2 * RESOLUTION_MS);
    holdFor(EVENT_LOOP_WARN_MS + 100);
    await tick(checkMs + 50);
    // A second hold within the minute is not logged again.
    holdFor(EVENT_LOOP_WARN_MS + 100);
    await tick(checkMs + 50);
    stop();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.holdMs).toBeGreaterThanOrEqual(EVENT_LOOP_WARN_MS);
  });
});
