import { Worker } from 'node:worker_threads';
import { directoryNames, isCandidateName } from './key-directory';
import { type NameSet, nameHash } from './name-set';

/**
 * A batch of a directory's candidate names, each with its nameHash: a pass looks the hashes up
 * and makes strings only of the names it does not hold.
 */
export interface NameBatch {
  readonly length: number;
  readonly hashes: Float64Array;
  nameAt(index: number): string;
}

/** Batches a thread may list ahead of the pass (bounded: a stalled pass holds ~8 x 45 KB). */
const AHEAD = 8;

/**
 * The candidate names of `dir`, `batchSize` at a time, listed and hashed on a thread of their
 * own where one starts: a pass over a million names spends about 0.55 s listing and 0.2 s hashing,
 * which then overlap the pass's lookups and reads on this thread instead of adding to them
 * (walletRefresh at a million wallets, issue 40). The names come as one string a batch with
 * their offsets, not as a million strings cloned between threads.
 */
export async function* nameBatches(dir: string, batchSize: number): AsyncGenerator<NameBatch> {
  const thread = startLister(dir, batchSize);
  if (thread === undefined) {
    for await (const names of directoryNames(dir, batchSize)) yield inlineBatch(names);
    return;
  }
  try {
    for (;;) {
      const batch = await thread.next();
      if (batch === null) return;
      yield batch;
    }
  } finally {
    await thread.close();
  }
}

function inlineBatch(names: string[]): NameBatch {
  const hashes = Float64Array.from(names, nameHash);
  return { length: names.length, hashes, nameAt: (index) => names[index]! };
}

interface ListedMessage {
  text?: string;
  ends?: Uint32Array;
  hashes?: Float64Array;
  done?: true;
  error?: { message: string; code?: string };
}

// Runs in the thread: lists the directory with readSync and posts each batch (names joined, their
// end offsets, their hashes); a credit from the pass lets it list one batch more.
const THREAD_SOURCE = (hashSource: string, candidateSource: string) => `
const { parentPort, workerData } = require('node:worker_threads');
const { opendirSync } = require('node:fs');
const nameHash = ${hashSource};
const isCandidateName = ${candidateSource};
const { dir, batchSize, ahead } = workerData;
let credits = ahead;
let handle;
function listSome() {
  try {
    handle ??= opendirSync(dir, { bufferSize: 1024 });
    while (credits > 0) {
      const names = [];
      for (;;) {
        const dirent = handle.readSync();
        if (dirent === null) break;
        if (!isCandidateName(dirent.name)) continue;
        if (!dirent.isFile() && !dirent.isSymbolicLink()) continue;
        names.push(dirent.name);
        if (names.length === batchSize) break;
      }
      if (names.length > 0) {
        const ends = new Uint32Array(names.length);
        const hashes = new Float64Array(names.length);
        let at = 0;
        for (let i = 0; i < names.length; i++) {
          at += names[i].length;
          ends[i] = at;
          hashes[i] = nameHash(names[i]);
        }
        credits--;
        parentPort.postMessage({ text: names.join(''), ends, hashes }, [ends.buffer, hashes.buffer]);
      }
      if (names.length < batchSize) {
        handle.closeSync();
        parentPort.postMessage({ done: true });
        parentPort.close();
        return;
      }
    }
  } catch (error) {
    parentPort.postMessage({ error: { message: String(error && error.message) + ' ' + JSON.stringify(dir), code: error && error.code } });
    parentPort.close();
  }
}
parentPort.on('message', () => { credits++; if (credits === 1) listSome(); });
listSome();
`;

interface ListerThread {
  /** The next batch, or null once the listing ended. */
  next(): Promise<NameBatch | null>;
  close(): Promise<void>;
}

function startLister(dir: string, batchSize: number): ListerThread | undefined {
  let worker: Worker;
  try {
    // No flags of the parent's (a test runner's source conditions): the source is self-contained.
    worker = new Worker(THREAD_SOURCE(nameHash.toString(), isCandidateName.toString()), {
      eval: true,
      execArgv: [],
      workerData: { dir, batchSize, ahead: AHEAD },
    });
  } catch {
    return undefined;
  }
  const queue: ListedMessage[] = [];
  let waiting: ((message: ListedMessage) => void) | undefined;
  const deliver = (message: ListedMessage) => {
    if (waiting === undefined) {
      queue.push(message);
      return;
    }
    const resolve = waiting;
    waiting = undefined;
    resolve(message);
  };
  worker.on('message', deliver);
  worker.on('error', (error) => deliver({ error: { message: error.message } }));
  worker.on('exit', () => deliver({ done: true }));
  let ended = false;
  return {
    async next() {
      if (ended) return null;
      const message =
        queue.shift() ?? (await new Promise<ListedMessage>((resolve) => (waiting = resolve)));
      if (message.error !== undefined) {
        ended = true;
        throw Object.assign(new Error(message.error.message), { code: message.error.code });
      }
      if (message.done === true) {
        ended = true;
        return null;
      }
      worker.postMessage(1);
      return threadBatch(message.text!, message.ends!, message.hashes!);
    },
    async close() {
      ended = true;
      await worker.terminate();
    },
  };
}

function threadBatch(text: string, ends: Uint32Array, hashes: Float64Array): NameBatch {
  return {
    length: ends.length,
    hashes,
    nameAt: (index) => text.slice(index === 0 ? 0 : ends[index - 1]!, ends[index]!),
  };
}

/** The names of a batch that `indexed` does not hold, made into strings only for those. */
export function unknownNames(names: NameBatch, indexed: NameSet): string[] {
  const unknown: string[] = [];
  for (let i = 0; i < names.length; i++) {
    if (!indexed.hasHash(names.hashes[i]!)) unknown.push(names.nameAt(i));
  }
  return unknown;
}
