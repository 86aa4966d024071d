import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  STATE_ENTRY_TAG,
} from '../../state/state-lattice';
import {
  type ChainStore,
  type DatabaseSnapshot,
  heightKey,
  META_PRODUCERS,
  readHeightKey,
} from './store';

/** The records of the state entries (the state-root encodings without their tag). */
export const recordOfEntry = (entry: Uint8Array): Uint8Array =>
  entry.subarray(STATE_ENTRY_TAG.length);

/** The state-root entries of `records` (each with its tag again), back to back, and their lengths. */
export function taggedEntries(records: readonly Uint8Array[]): {
  bytes: Uint8Array;
  lengths: Uint32Array;
} {
  const tag = STATE_ENTRY_TAG.length;
  const lengths = new Uint32Array(records.length);
  let size = 0;
  for (let i = 0; i < records.length; i++) {
    lengths[i] = tag + records[i]!.length;
    size += lengths[i]!;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const record of records) {
    bytes.set(STATE_ENTRY_TAG, at);
    bytes.set(record, at + tag);
    at += tag + record.length;
  }
  return { bytes, lengths };
}

/** The state-root entries of `records` (each with its tag again), views into one buffer. */
export function entriesOfRecords(records: readonly Uint8Array[]): Uint8Array[] {
  const { bytes, lengths } = taggedEntries(records);
  const entries: Uint8Array[] = [];
  let at = 0;
  for (const length of lengths) {
    entries.push(bytes.subarray(at, at + length));
    at += length;
  }
  return entries;
}

/** Where a record sits in the record order: an account number, a space key, the producer set. */
export type RecordPosition =
  | { part: 'accounts'; number: number }
  | { part: 'spaces'; key: string }
  | { part: 'producers' };

const READ_BATCH = 1024;

/**
 * The records of the state `store` holds (through `view` when given), in record order from
 * `start` (accounts by number, space entries by key, the producer set), each with its position.
 */
export async function* stateRecords(
  store: ChainStore,
  view?: DatabaseSnapshot,
  start: RecordPosition = { part: 'accounts', number: 0 },
): AsyncGenerator<[RecordPosition, Uint8Array]> {
  const through = view === undefined ? {} : { snapshot: view };
  if (start.part === 'accounts') {
    const accounts = store.accounts.iterator({ gte: heightKey(start.number), ...through });
    try {
      for (;;) {
        const entries = await accounts.nextv(READ_BATCH);
        if (entries.length === 0) break;
        for (const [key, value] of entries) {
          const number = readHeightKey(key);
          yield [{ part: 'accounts', number }, recordOfEntry(encodeAccountEntry(number, value))];
        }
      }
    } finally {
      await accounts.close();
    }
  }
  if (start.part !== 'producers') {
    const gte = start.part === 'spaces' ? start.key : '';
    const spaces = store.spaces.iterator({ gte, ...through });
    try {
      for (;;) {
        const entries = await spaces.nextv(READ_BATCH);
        if (entries.length === 0) break;
        for (const [key, value] of entries) {
          const split = key.indexOf('\u0000');
          const record = encodeSpaceEntry(key.slice(0, split), key.slice(split + 1), value);
          yield [{ part: 'spaces', key }, recordOfEntry(record)];
        }
      }
    } finally {
      await spaces.close();
    }
  }
  const producers =
    view === undefined
      ? await store.read(store.meta, META_PRODUCERS)
      : await store.meta.get(META_PRODUCERS, { snapshot: view });
  if (producers === undefined) throw new Error('the producer set is missing');
  yield [{ part: 'producers' }, recordOfEntry(encodeProducersEntry(producers))];
}

/** The records of the state `store` holds, in record order, in batches of `size`. */
export async function* stateRecordBatches(
  store: ChainStore,
  size: number,
): AsyncGenerator<Uint8Array[]> {
  let batch: Uint8Array[] = [];
  for await (const [, record] of stateRecords(store)) {
    batch.push(record);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
