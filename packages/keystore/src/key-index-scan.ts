import { stat } from 'node:fs/promises';
import { nameBatches, unknownNames } from './directory-lister';
import type { DirectoryChanges } from './directory-watcher';
import { directoryNames, dirStamp, goneNames, hasSettled, wallClockNs } from './key-directory';
import type { Forget, KeyIndex, SyncCounts } from './key-index-api';
import type { IndexMeta } from './key-index-records';
import type { NameSet } from './name-set';

/** Names read, parsed and written per index batch while building or diffing. */
export const BATCH_SIZE = 512;
/** New names of a pass gathered before they are read and indexed (while the pass goes on). */
const FLUSH_AT = 128;

/** What a pass over the directory takes from its index (key-index.ts). */
export interface IndexScanParts {
  dir: string;
  meta(): IndexMeta;
  /** The names changed since the last complete pass, from the kernel (directory-watcher.ts). */
  changes(): DirectoryChanges | undefined;
  /**
   * The directory's mtime as a scan under way knows it: its start's, moved on by each of the
   * index's own writes made from exactly that state (syncNames' ownWrite); null once something
   * else changed it meanwhile. A scan that completes records it, so the writes made during a
   * build do not make the next open scan.
   */
  mtime: { known: string | null };
  syncNames(names: readonly string[], forget: Forget): Promise<SyncCounts>;
  /** Updates the index's state and writes it, as a change of the index (one at a time). */
  recordMeta(update: (meta: IndexMeta) => void): Promise<SyncCounts>;
  indexedNames(): Promise<NameSet>;
  /** The file names the index holds, in order. */
  indexedFileNames(): AsyncIterable<string>;
}

type ScanOptions = Parameters<KeyIndex['scan']>[0];
type ScanResult = SyncCounts & { completed: boolean };

/** The index's passes over its directory: the names the kernel told changed, else all of them. */
export function createIndexScan(parts: IndexScanParts): {
  scan(options: ScanOptions): Promise<ScanResult>;
} {
  const { dir, mtime } = parts;

  async function countNames(): Promise<number> {
    let total = 0;
    for await (const batch of directoryNames(dir, BATCH_SIZE)) total += batch.length;
    return total;
  }

  /**
   * A pass over the names the kernel told changed since the last complete pass, when that record
   * is trusted (else undefined: a whole pass is needed): O(changes), at any store size.
   */
  async function syncChangedNames({
    forget,
    exclusive,
    stopped,
  }: ScanOptions): Promise<ScanResult | undefined> {
    const watched = parts.changes();
    if (watched === undefined) return undefined;
    // Before the take: every change it does not hold moves the mtime past this one.
    const dirMtime = (await stat(dir, { bigint: true })).mtimeNs.toString();
    const names = await watched.take();
    if (names === undefined) return undefined;
    const counts = { added: 0, removed: 0, completed: false };
    mtime.known = dirMtime;
    try {
      for (let i = 0; i < names.length; i += BATCH_SIZE) {
        if (stopped()) {
          watched.distrust();
          return counts;
        }
        const result = await exclusive(() =>
          parts.syncNames(names.slice(i, i + BATCH_SIZE), forget),
        );
        counts.added += result.added;
        counts.removed += result.removed;
      }
    } catch (error) {
      watched.distrust();
      throw error;
    }
    await exclusive(() =>
      parts.recordMeta((meta) => {
        meta.scannedDirMtimeNs = mtime.known ?? dirMtime;
      }),
    );
    return { ...counts, completed: true };
  }

  async function scan(options: ScanOptions): Promise<ScanResult> {
    const { forget, exclusive, stopped, progress, countFirst = false } = options;
    const changed = await syncChangedNames(options);
    if (changed !== undefined) return changed;
    const meta = parts.meta();
    const watched = parts.changes();
    const mark = watched?.mark();
    const completed = () => {
      if (mark !== undefined) watched?.complete(mark);
    };
    const clockAtStart = wallClockNs();
    const started = await stat(dir, { bigint: true });
    const startStamp = dirStamp(started);
    // No name came or went since the last complete pass: nothing to list (see passedDirStamp).
    if (meta.passedDirStamp === startStamp) {
      completed();
      return { added: 0, removed: 0, completed: true };
    }
    mtime.known = started.mtimeNs.toString();
    const total = countFirst ? await countNames() : meta.files;
    progress?.({ done: 0, total });
    const counts = { added: 0, removed: 0 };
    let done = 0;
    let seenIndexed = 0;
    let indexedHere = 0;
    const indexed = await parts.indexedNames();
    // New names gathered across batches of the listing and indexed FLUSH_AT or more at a time
    // (files copied in land anywhere in the directory's order, one or two per batch), one such
    // write at a time, while the listing goes on: the reads of the files overlap the pass.
    let pending: string[] = [];
    let flushing: Promise<void> = Promise.resolve();
    const flush = async () => {
      await flushing;
      const unknown = pending;
      pending = [];
      if (unknown.length === 0) return;
      flushing = exclusive(() => parts.syncNames(unknown, forget)).then((result) => {
        counts.added += result.added;
        counts.removed += result.removed;
        indexedHere += unknown.length;
      });
      // Awaited at the next flush or the end of the pass; never an unhandled rejection meanwhile.
      flushing.catch(() => undefined);
    };
    const stop = async () => {
      await flushing.catch(() => undefined);
      return { ...counts, completed: false };
    };
    for await (const names of nameBatches(dir, BATCH_SIZE)) {
      if (stopped()) return stop();
      const unknown = unknownNames(names, indexed);
      seenIndexed += names.length - unknown.length;
      pending.push(...unknown);
      if (pending.length >= FLUSH_AT) await flush();
      done += names.length;
      progress?.({ done, total: Math.max(total, done) });
    }
    await flush();
    await flushing;
    // Fewer names than the index holds: some files are gone. Only then is the index swept.
    if (seenIndexed + indexedHere < parts.meta().files) {
      let batch: string[] = [];
      const sweep = async () => {
        const gone = await goneNames(dir, batch);
        batch = [];
        if (gone.length === 0) return;
        const result = await exclusive(() => parts.syncNames(gone, forget));
        counts.removed += result.removed;
      };
      for await (const name of parts.indexedFileNames()) {
        if (stopped()) return { ...counts, completed: false };
        batch.push(name);
        if (batch.length === BATCH_SIZE) await sweep();
      }
      await sweep();
    }
    await exclusive(() =>
      parts.recordMeta((now) => {
        now.scannedDirMtimeNs = mtime.known ?? started.mtimeNs.toString();
        const unchanged = mtime.known === started.mtimeNs.toString();
        now.passedDirStamp =
          unchanged && hasSettled(started.mtimeNs, clockAtStart) ? startStamp : null;
      }),
    );
    completed();
    return { ...counts, completed: true };
  }

  return { scan };
}
