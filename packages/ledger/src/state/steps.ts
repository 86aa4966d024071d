/**
 * Long synchronous passes written once as steps (a generator that yields between them), run either
 * at once (`runSteps`) or giving the event loop back between steps (`runStepsPaused`, with a
 * chain's TimeSlice `pause`): a block's changes, its state vector and its writes are the same
 * either way (issue 44 item 4: no step of a block holds the event loop more than 50 ms).
 */

/** Gives the event loop back when the caller's time slice is spent (TimeSlice.pause). */
export type Pause = () => Promise<void>;

/** Items (accounts, entries, elements) a step covers: a few ms of work at most. */
export const STEP_ITEMS = 512;

/** Runs every step at once. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the steps with `pause()` between them. */
export async function runStepsPaused<T>(steps: Generator<void, T>, pause: Pause): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}
