export interface KeyedMutex {
  /** Runs `task` once every earlier task for `key` has settled; tasks for other keys run freely. */
  runExclusive<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Tasks running or waiting for `key`. */
  pending(key: string): number;
}

/** A FIFO queue per key, holding no memory for keys with nothing queued. */
export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<unknown>>();
  const counts = new Map<string, number>();

  return {
    async runExclusive(key, task) {
      const run = (tails.get(key) ?? Promise.resolve()).then(() => task());
      // The stored tail never rejects, so one failed task does not fail those queued behind it.
      tails.set(
        key,
        run.catch(() => undefined),
      );
      counts.set(key, (counts.get(key) ?? 0) + 1);
      try {
        return await run;
      } finally {
        const left = counts.get(key)! - 1;
        if (left === 0) {
          counts.delete(key);
          tails.delete(key);
        } else {
          counts.set(key, left);
        }
      }
    },
    pending(key) {
      return counts.get(key) ?? 0;
    },
  };
}
