import type { ClassicLevel } from 'classic-level';
import type { IndexMeta } from './key-index-records';

/** A batch of index writes, read through: what it would write is what it reads. */
export interface Txn {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): void;
  del(key: string): void;
}

export interface IndexTxn extends Txn {
  /** Writes every change and the index's meta record (as it is then) in one batch. */
  commit(sync: boolean): Promise<void>;
  /** Reads these records ahead in one getMany (a batch of names reads its records at once). */
  prefetch(keys: readonly string[]): Promise<void>;
}

/**
 * A change of the index's records: reads see its own writes, then what was read ahead, then the
 * database. `changing` is told when it starts and once its batch is written (or failed).
 */
export function createIndexTxn(
  db: ClassicLevel<string, unknown>,
  meta: () => IndexMeta,
  changing: () => void,
): IndexTxn {
  changing();
  const ops = new Map<string, unknown>();
  const read = new Map<string, unknown>();
  const DELETED = Symbol('deleted');
  return {
    async get(key) {
      if (ops.has(key)) {
        const value = ops.get(key);
        return value === DELETED ? undefined : value;
      }
      if (read.has(key)) return read.get(key);
      return db.get(key);
    },
    async prefetch(keys) {
      const wanted = keys.filter((key) => !ops.has(key) && !read.has(key));
      if (wanted.length === 0) return;
      const values = await db.getMany(wanted);
      for (const [i, key] of wanted.entries()) read.set(key, values[i]);
    },
    put(key, value) {
      ops.set(key, value);
    },
    del(key) {
      ops.set(key, DELETED);
    },
    async commit(sync) {
      ops.set('m', { ...meta() });
      const batch = [...ops].map(([key, value]) =>
        value === DELETED ? { type: 'del' as const, key } : { type: 'put' as const, key, value },
      );
      try {
        await db.batch(batch, { sync });
      } finally {
        changing();
      }
    },
  };
}
