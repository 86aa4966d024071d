import { type FSWatcher, readFileSync, statSync, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { isCandidateName } from './key-directory';

/**
 * The names of a key directory changed since a complete pass over it, recorded from the kernel's
 * notifications (inotify), so that walletRefresh reads those names only instead of listing a
 * million: a cold listing of a million names takes 3 s here (the directory's blocks read from
 * disk once the page cache let them go), a warm one 0.5 s.
 *
 * The record is trusted only when it cannot have missed a change: it began before a pass that
 * completed (or before open found the directory as the index last saw it), on Linux (inotify is
 * per event; other systems' notifications coalesce), and nothing since made it doubtful: the
 * watcher failed, a name was not given, the directory was replaced, the record outgrew its bound,
 * or so many events came in one turn of the event loop that the kernel's queue may have
 * overflowed (inotify drops events past `max_queued_events` and libuv does not say so; it reads
 * the whole queue in one turn, so an overflow shows as a turn of at least that many events).
 * Untrusted, take() answers undefined and the caller makes a whole pass, which trusts it again.
 */
export interface DirectoryChanges {
  /** A whole pass (or open's check) starts now; complete() it with this mark when it is done. */
  mark(): number;
  /** The pass begun at `mark` saw the whole directory: the record is trusted if nothing was missed since. */
  complete(mark: number): void;
  /**
   * The names changed since the last take, or undefined when a whole pass is needed. Waits for a
   * file-system round trip and the turn's end first: a change completed before the call has been
   * told by then.
   */
  take(): Promise<string[] | undefined>;
  /** What take() returned could not be applied: a whole pass is needed. */
  distrust(): void;
  /**
   * Resolves once this turn's poll phase is over: the events of every change completed before
   * the call have been told by then (one timer for all the calls of a turn).
   */
  settled(): Promise<void>;
  /**
   * Whether `name`'s file is as a read since the record was last doubted found it: no event for
   * it since (so a key use need not stat it). Ask after settled().
   */
  unchangedSinceRead(name: string): boolean;
  /** `name`'s file is read now; call the result once the index holds what was read. */
  reading(name: string): () => void;
  close(): void;
}

export interface DirectoryChangesOptions {
  /** Whether to watch at all (off: every refresh is a whole pass). */
  enabled: boolean;
  /** Changed names recorded at most; past it a whole pass is cheaper than the record. */
  maxNames: number;
  /** Events in one turn of the event loop taken as a possible overflow of the kernel's queue. */
  maxEventsPerTurn: number;
}

export const DEFAULT_DIRECTORY_CHANGES_OPTIONS: DirectoryChangesOptions = {
  enabled: process.platform === 'linux',
  maxNames: 50_000,
  maxEventsPerTurn: Math.max(1, Math.floor(inotifyQueueLimit() / 2)),
};

function inotifyQueueLimit(): number {
  try {
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    return Number.isSafeInteger(limit) && limit > 0 ? limit : 16_384;
  } catch {
    return 16_384;
  }
}

/**
 * The watch events of this thread in the current turn of its event loop: every fs.watch of a
 * thread shares libuv's one inotify instance, hence one queue, so its overflow shows in all of
 * them together (no other part of the node watches files).
 */
let eventsThisTurn = 0;

function countTurnEvent(): number {
  if (eventsThisTurn === 0) setImmediate(() => (eventsThisTurn = 0)).unref();
  return ++eventsThisTurn;
}

export function watchDirectoryChanges(
  dir: string,
  options: Partial<DirectoryChangesOptions> = {},
): DirectoryChanges {
  const settings = { ...DEFAULT_DIRECTORY_CHANGES_OPTIONS, ...options };
  const names = new Set<string>();
  /** Names whose file a read found as the index holds it, with no event since (oldest first). */
  const unchanged = new Set<string>();
  /** Each name's last event, by the sequence of events (for the reads in flight). */
  const lastEvent = new Map<string, number>();
  let events = 0;
  /** Bumped when lastEvent is emptied: a read in flight cannot tell what came meanwhile. */
  let forgotten = 0;
  let settling: Promise<void> | undefined;
  /** Bumped by every doubt: a pass marked before it cannot make the record trusted. */
  let doubts = 0;
  let trusted = false;
  let watcher: FSWatcher | undefined;
  let watchedInode: bigint | undefined;
  let closed = false;
  const ownName = basename(dir);

  function doubt(): void {
    doubts++;
    trusted = false;
    names.clear();
    unchanged.clear();
  }

  function noteEvent(name: string): void {
    names.add(name);
    unchanged.delete(name);
    if (lastEvent.size >= settings.maxNames) {
      lastEvent.clear();
      forgotten++;
    }
    lastEvent.set(name, ++events);
  }

  function stopWatching(): void {
    watcher?.close();
    watcher = undefined;
  }

  function onEvent(_type: string, name: string | Buffer | null): void {
    if (name === ownName) {
      // The directory itself moved or was deleted (libuv names such an event after it): what is
      // at its path now is not watched until the next pass watches again.
      stopWatching();
      doubt();
    } else if (countTurnEvent() >= settings.maxEventsPerTurn || typeof name !== 'string') {
      doubt();
    } else if (isCandidateName(name)) {
      noteEvent(name);
      if (names.size > settings.maxNames) doubt();
    }
  }

  function startWatching(): void {
    if (!settings.enabled || closed || watcher !== undefined) return;
    try {
      // The directory the watch holds, taken first: one put in its place later is not watched,
      // and take() finds its inode changed.
      watchedInode = statSync(dir, { bigint: true }).ino;
      watcher = watch(dir, { persistent: false, encoding: 'utf8' }, onEvent);
    } catch {
      doubt();
      return;
    }
    watcher.on('error', () => {
      stopWatching();
      doubt();
    });
  }

  startWatching();

  return {
    mark() {
      startWatching();
      return doubts;
    },

    complete(mark) {
      if (watcher !== undefined && mark === doubts) trusted = true;
    },

    async take() {
      let inode: bigint | undefined;
      try {
        inode = (await stat(dir, { bigint: true })).ino;
      } catch {
        doubt();
      }
      // The kernel queued the events of every change completed before the call; the poll phase
      // that read the stat's answer read them too, and the check phase comes after it.
      await new Promise((resolve) => setImmediate(resolve));
      if (watcher === undefined || inode !== watchedInode) {
        stopWatching();
        doubt();
      }
      if (!trusted) return undefined;
      const changed = [...names];
      names.clear();
      return changed;
    },

    distrust: doubt,

    settled() {
      // Nothing watched, nothing to wait for: no read is vouched for then anyway.
      if (watcher === undefined) return Promise.resolve();
      settling ??= new Promise((resolve) =>
        setImmediate(() => {
          settling = undefined;
          resolve();
        }),
      );
      return settling;
    },

    unchangedSinceRead(name) {
      return watcher !== undefined && unchanged.has(name);
    },

    reading(name) {
      const since = { watcher, doubts, forgotten, events };
      return () => {
        const changedMeanwhile =
          doubts !== since.doubts ||
          forgotten !== since.forgotten ||
          (lastEvent.get(name) ?? 0) > since.events;
        if (changedMeanwhile || watcher === undefined || watcher !== since.watcher) return;
        unchanged.delete(name);
        unchanged.add(name);
        if (unchanged.size > settings.maxNames) unchanged.delete(unchanged.values().next().value!);
      };
    },

    close() {
      closed = true;
      stopWatching();
      doubt();
    },
  };
}
