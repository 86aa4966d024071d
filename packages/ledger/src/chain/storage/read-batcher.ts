type Values = (Uint8Array | undefined)[];

interface Waiter {
  from: number;
  count: number;
  resolve(values: Values): void;
  reject(error: unknown): void;
}

interface Batch {
  keys: Uint8Array[];
  waiters: Waiter[];
}

/**
 * Gathers the key reads of many callers into few `getMany` calls. A call to the database costs the
 * event loop about as much as twenty keys read in it, and under load the reads come one or two per
 * turn: so while `maxInFlight` calls are out, new keys wait and leave together when one returns.
 * A read that arrives when the database is idle leaves at the end of the turn, as alone as it came.
 */
export class ReadBatcher {
  private waiting: Batch | undefined;
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly getMany: (keys: Uint8Array[]) => Promise<Values>,
    private readonly maxInFlight: number,
  ) {}

  read(keys: Uint8Array[]): Promise<Values> {
    if (keys.length === 0) return Promise.resolve([]);
    return new Promise<Values>((resolve, reject) => {
      const batch = this.waiting ?? { keys: [], waiters: [] };
      this.waiting = batch;
      batch.waiters.push({ from: batch.keys.length, count: keys.length, resolve, reject });
      for (const key of keys) batch.keys.push(key);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    const batch = this.waiting;
    if (batch === undefined) return;
    this.waiting = undefined;
    this.inFlight++;
    this.getMany(batch.keys).then(
      (values) => {
        this.returned();
        for (const w of batch.waiters) w.resolve(values.slice(w.from, w.from + w.count));
      },
      (error: unknown) => {
        this.returned();
        for (const w of batch.waiters) w.reject(error);
      },
    );
  }

  private returned(): void {
    this.inFlight--;
    if (this.waiting !== undefined) this.schedule();
  }
}
