import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { nameBatches, unknownNames } from './directory-lister';
import {
  type DirectoryChanges,
  type DirectoryChangesOptions,
  watchDirectoryChanges,
} from './directory-watcher';
import {
  directoryNames,
  dirStamp,
  goneNames,
  hasSettled,
  type KeyFileRead,
  readKeyFile,
  wallClockNs,
} from './key-directory';
import type { Forget, KeyEntry, KeyIndex, SyncCounts } from './key-index-api';
import {
  compareOrder,
  compareStrings,
  emptyMeta,
  type FileRecord,
  INDEX_VERSION,
  type IndexMeta,
  orderKey,
  type WalletRecord,
} from './key-index-records';
import { createIndexTxn, type IndexTxn, type Txn } from './key-index-txn';
import { createNameSet, type NameSet, nameHash } from './name-set';
import { normalizeAddress } from './wallet-address';

/**
 * The persistent index of a key directory (issue 40): a LevelDB database in `<dir>/.index`, hidden
 * so that directory scans (ours, geth's) never take it for a key file, and beside the files it
 * describes so that a copy of the directory carries it (or not: it is rebuilt from the files).
 * The key files stay the source of truth; the index says which file holds which wallet, in which
 * order, and which wallets are locked, so that nothing at open reads the files.
 *
 * Keys (all utf8, values JSON):
 *  - `m`                    the index's own state (version, counts, last complete directory scan)
 *  - `f!<file name>`        what the file holds ({@link FileRecord}), with its stamp (size, times)
 *  - `w!<chain address>`    the file of a wallet, with its key identity and creation time
 *  - `e!<eth address>`      the file of a key by its Ethereum-style identity (duplicates, imports)
 *  - `o!<createdAt>!<file>` creation order of wallets (createdAt: 20 decimal digits), for paging
 *  - `u!<file name>`        a file made elsewhere, waiting for its passphrase
 *  - `x!<file name>`        a file holding no usable key, and why
 *  - `j!<file name>`        a file being written: replayed at open, so a crash between the file and
 *                           the index is repaired without a scan
 */
export const INDEX_DIR = '.index';
/**
 * A wallet's key in the name set: its chain address after a NUL, which no file name holds, so
 * that one set tells indexed names and indexed wallets apart.
 */
const walletKey = (address: string) => `\u0000${address}`;
/** Entries (parsed key files) kept in memory; the rest is read from disk on use. */
const ENTRY_CACHE_SIZE = 4_096;
/** Names read, parsed and written per index batch while building or diffing. */
const BATCH_SIZE = 512;
/** New names of a pass gathered before they are read and indexed (while the pass goes on). */
const FLUSH_AT = 128;

export function createKeyIndex(
  dir: string,
  addressOf: (publicKey33: Uint8Array) => string,
  /** Told of every key whose file changed or went, when a read finds it so. */
  forgetKey: Forget,
  watchOptions: Partial<DirectoryChangesOptions> = {},
): KeyIndex {
  let db: ClassicLevel<string, unknown> | undefined;
  let meta: IndexMeta = emptyMeta();
  const unresolved = new Map<string, { ethAddress: string | null; createdAt: bigint }>();
  const invalid = new Map<string, string>();
  const entries = new Map<string, KeyEntry>();
  /**
   * The directory's mtime as a scan under way knows it: its start's, moved on by each of our own
   * writes made from exactly that state; null once something else changed it meanwhile. A scan
   * that completes records it, so the writes made during a build do not make the next open scan.
   */
  let knownDirMtime: string | null = null;
  /**
   * The indexed names and wallets (walletKey), loaded by the first scan or after open
   * (name-set.ts), kept up to date by every change.
   */
  let indexedNames: NameSet | undefined;
  /** The names changed since the last complete pass, from the kernel (directory-watcher.ts). */
  let changes: DirectoryChanges | undefined;
  /** Bumped when the index starts and ends a change: an entry read across one may be the old one. */
  let writes = 0;

  function database(): ClassicLevel<string, unknown> {
    if (db === undefined) throw new Error('key index is not open');
    return db;
  }

  function remember(entry: KeyEntry): void {
    const key = entry.address ?? entry.id;
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > ENTRY_CACHE_SIZE) entries.delete(entries.keys().next().value!);
  }

  function recall(key: string): KeyEntry | undefined {
    const entry = entries.get(key);
    if (entry !== undefined) {
      entries.delete(key);
      entries.set(key, entry);
    }
    return entry;
  }

  function newTxn(): IndexTxn {
    return createIndexTxn(
      database(),
      () => meta,
      () => writes++,
    );
  }

  async function walletRecord(address: string): Promise<WalletRecord | undefined> {
    return ((await database().get(`w!${address}`)) as WalletRecord | undefined) ?? undefined;
  }

  async function fileRecord(txn: Txn | undefined, name: string): Promise<FileRecord | undefined> {
    return ((await (txn ?? database()).get(`f!${name}`)) as FileRecord | undefined) ?? undefined;
  }

  /** Drops every record of a file name; returns what it held. */
  async function removeName(
    txn: Txn,
    name: string,
    forget: Forget,
  ): Promise<FileRecord | undefined> {
    const record = await fileRecord(txn, name);
    if (record === undefined) return undefined;
    txn.del(`f!${name}`);
    noteName(false, name);
    meta.files--;
    if (record.id !== undefined && (await txn.get(`e!${record.id}`)) === name) {
      txn.del(`e!${record.id}`);
    }
    if (record.id !== undefined) forget(record.id);
    forget(`?${name}`);
    if (record.kind === 'wallet') {
      txn.del(`w!${record.address}`);
      noteName(false, walletKey(record.address!));
      txn.del(orderKey(BigInt(record.createdAt), name));
      entries.delete(record.address!);
      meta.wallets--;
    } else if (record.kind === 'unresolved') {
      txn.del(`u!${name}`);
      unresolved.delete(name);
      entries.delete(record.id ?? `?${name}`);
    } else {
      txn.del(`x!${name}`);
      invalid.delete(name);
    }
    return record;
  }

  function addInvalid(txn: Txn, name: string, stamp: string, createdAt: bigint, problem: string) {
    const record: FileRecord = { kind: 'invalid', createdAt: createdAt.toString(), stamp, problem };
    txn.put(`f!${name}`, record);
    noteName(true, name);
    txn.put(`x!${name}`, problem);
    invalid.set(name, problem);
    meta.files++;
  }

  /**
   * Indexes what a file read holds. A second copy of a key indexed already: the copy made first
   * (in creation order, then by name, as the scan of a whole directory ordered them) keeps it.
   * Returns whether a key (wallet or unresolved) was added.
   */
  async function addName(
    txn: Txn,
    name: string,
    read: KeyFileRead,
    forget: Forget,
  ): Promise<boolean> {
    if ('problem' in read) {
      addInvalid(txn, name, read.stamp, read.createdAt, read.problem);
      return false;
    }
    const { file, createdAt, stamp } = read;
    const id = file.ethAddress;
    if (id !== null) {
      const holderName = (await txn.get(`e!${id}`)) as string | undefined;
      if (holderName !== undefined && holderName !== name) {
        const holder = await fileRecord(txn, holderName);
        if (
          holder !== undefined &&
          compareOrder(BigInt(holder.createdAt), holderName, createdAt, name) < 0
        ) {
          addInvalid(txn, name, stamp, createdAt, `holds the same key as ${holderName}`);
          return false;
        }
        if (holder !== undefined) {
          await removeName(txn, holderName, forget);
          const problem = `holds the same key as ${name}`;
          addInvalid(txn, holderName, holder.stamp, BigInt(holder.createdAt), problem);
        }
      }
    }
    let address: string | null = null;
    if (file.chain !== null) {
      try {
        address = normalizeAddress(addressOf(file.chain.publicKey));
      } catch {
        addInvalid(txn, name, stamp, createdAt, 'no chain address for its public key');
        return false;
      }
    }
    if (address !== null && id !== null) {
      const record: FileRecord = {
        kind: 'wallet',
        createdAt: createdAt.toString(),
        stamp,
        id,
        address,
      };
      txn.put(`f!${name}`, record);
      noteName(true, name);
      const wallet: WalletRecord = { name, id, createdAt: createdAt.toString() };
      txn.put(`w!${address}`, wallet);
      noteName(true, walletKey(address));
      txn.put(`e!${id}`, name);
      txn.put(orderKey(createdAt, name), address);
      meta.wallets++;
      remember({ id, fileName: name, createdAt, file, address, stamp });
    } else {
      const record: FileRecord = { kind: 'unresolved', createdAt: createdAt.toString(), stamp };
      if (id !== null) {
        record.id = id;
        txn.put(`e!${id}`, name);
      }
      txn.put(`f!${name}`, record);
      noteName(true, name);
      txn.put(`u!${name}`, { ethAddress: id });
      unresolved.set(name, { ethAddress: id, createdAt });
    }
    meta.files++;
    return true;
  }

  /**
   * The entry of an indexed file, its content read from disk (the cache first). A file found
   * changed since it was indexed (or gone) is indexed again first.
   */
  async function entryOf(
    name: string,
    record: FileRecord,
    again = true,
  ): Promise<KeyEntry | undefined> {
    if (record.kind === 'invalid') return undefined;
    const key = record.address ?? record.id ?? `?${name}`;
    const cached = recall(key);
    if (cached !== undefined && cached.fileName === name && cached.stamp === record.stamp) {
      return cached;
    }
    const read = await readKeyFile(dir, name);
    if (read === null || read === 'unchanged' || 'problem' in read || read.stamp !== record.stamp) {
      if (!again) return undefined;
      await syncNames([name], forgetKey);
      const now = await fileRecord(undefined, name);
      return now === undefined ? undefined : entryOf(name, now, false);
    }
    const entry: KeyEntry = {
      id: record.id ?? `?${name}`,
      fileName: name,
      createdAt: BigInt(record.createdAt),
      file: read.file,
      address: record.kind === 'wallet' ? record.address! : null,
      stamp: record.stamp,
    };
    remember(entry);
    return entry;
  }

  /** Changes of the index run one at a time: each reads, then writes, counts kept in memory. */
  let changing: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(run: () => Promise<T>): Promise<T> {
    const next = changing.then(run);
    changing = next.catch(() => undefined);
    return next;
  }

  function syncNames(
    names: readonly string[],
    forget: Forget,
    ownWrite?: { before: bigint; after: bigint },
  ): Promise<SyncCounts> {
    return oneAtATime(() => syncNamesNow(names, forget, ownWrite));
  }

  async function syncNamesNow(
    names: readonly string[],
    forget: Forget,
    ownWrite?: { before: bigint; after: bigint },
  ): Promise<SyncCounts> {
    const txn = newTxn();
    await txn.prefetch(names.map((name) => `f!${name}`));
    const reads = await Promise.all(
      names.map(async (name) => {
        const record = await fileRecord(txn, name);
        // One stat says whether the file is as indexed; only then is it read and parsed.
        const read = await readKeyFile(dir, name, record?.stamp);
        return { name, read };
      }),
    );
    // The identities the files claim, read at once (second copies of a key are found by them).
    await txn.prefetch(
      reads.flatMap(({ read }) =>
        read !== null && read !== 'unchanged' && 'file' in read && read.file.ethAddress !== null
          ? [`e!${read.file.ethAddress}`]
          : [],
      ),
    );
    const counts = { added: 0, removed: 0 };
    for (const { name, read } of reads) {
      if (read === 'unchanged') continue;
      const removed = await removeName(txn, name, forget);
      const wasKey = removed !== undefined && removed.kind !== 'invalid';
      const isKey = read === null ? false : await addName(txn, name, read, forget);
      if (isKey && !wasKey) counts.added++;
      if (wasKey && !isKey) counts.removed++;
      // The same name now holding another key: one key gone, one come.
      if (
        wasKey &&
        isKey &&
        'file' in read! &&
        removed.id !== (read.file.ethAddress ?? undefined)
      ) {
        counts.added++;
        counts.removed++;
      }
    }
    for (const name of names) txn.del(`j!${name}`);
    if (ownWrite !== undefined) {
      const before = ownWrite.before.toString();
      const after = ownWrite.after.toString();
      if (meta.scannedDirMtimeNs === before) meta.scannedDirMtimeNs = after;
      knownDirMtime = knownDirMtime === before ? after : null;
      // Our write and another made in the same tick of the file system's clock leave one mtime.
      meta.passedDirStamp = null;
    }
    if (names.length > 0) {
      try {
        await txn.commit(false);
      } catch (error) {
        // The name set took changes the index did not: read again from the index next time.
        indexedNames = undefined;
        throw error;
      }
    }
    return counts;
  }

  /** Changes of the indexed names while the name set is being read (applied after, in order). */
  let nameLog: Array<[boolean, string]> | undefined;
  let loadingNames: Promise<NameSet> | undefined;

  function noteName(added: boolean, name: string): void {
    if (added) indexedNames?.add(name);
    else indexedNames?.delete(name);
    nameLog?.push([added, name]);
  }

  /**
   * The name set, read from the index's file keys once (keys only, in order: a fast pass), while
   * changes go on: those made meanwhile are logged and applied to it after (a LevelDB iterator
   * reads a snapshot; a change both in it and in the log applies twice, which a set shrugs off).
   */
  function loadIndexedNames(): Promise<NameSet> {
    if (indexedNames !== undefined) return Promise.resolve(indexedNames);
    loadingNames ??= (async () => {
      const opened = database();
      nameLog = [];
      try {
        const hashes: number[] = [];
        for await (const key of opened.keys({ gt: 'f!', lt: 'f"' })) {
          hashes.push(nameHash(key.slice(2)));
        }
        for await (const key of opened.keys({ gt: 'w!', lt: 'w"' })) {
          hashes.push(nameHash(walletKey(key.slice(2))));
        }
        // Closed (and maybe opened again) meanwhile: this set is of a session gone.
        if (db !== opened) throw new Error('key index closed while its names were read');
        const set = createNameSet(hashes);
        for (const [added, name] of nameLog) {
          if (added) set.add(name);
          else set.delete(name);
        }
        indexedNames = set;
        return set;
      } finally {
        nameLog = undefined;
        loadingNames = undefined;
      }
    })();
    return loadingNames;
  }

  async function countNames(): Promise<number> {
    let total = 0;
    for await (const batch of directoryNames(dir, BATCH_SIZE)) total += batch.length;
    return total;
  }

  async function loadLists(): Promise<void> {
    unresolved.clear();
    invalid.clear();
    const base = database();
    for await (const [key, value] of base.iterator({ gt: 'u!', lt: 'u"' })) {
      const name = key.slice(2);
      const record = await fileRecord(undefined, name);
      unresolved.set(name, {
        ethAddress: (value as { ethAddress: string | null }).ethAddress,
        createdAt: BigInt(record?.createdAt ?? 0),
      });
    }
    for await (const [key, problem] of base.iterator({ gt: 'x!', lt: 'x"' })) {
      invalid.set(key.slice(2), problem as string);
    }
  }

  /**
   * A pass over the names the kernel told changed since the last complete pass, when that record
   * is trusted (else undefined: a whole pass is needed): O(changes), at any store size.
   */
  async function syncChangedNames(
    forget: Forget,
    exclusive: (run: () => Promise<SyncCounts>) => Promise<SyncCounts>,
    stopped: () => boolean,
  ): Promise<(SyncCounts & { completed: boolean }) | undefined> {
    const watched = changes;
    if (watched === undefined) return undefined;
    // Before the take: every change it does not hold moves the mtime past this one.
    const dirMtime = (await stat(dir, { bigint: true })).mtimeNs.toString();
    const names = await watched.take();
    if (names === undefined) return undefined;
    const counts = { added: 0, removed: 0, completed: false };
    knownDirMtime = dirMtime;
    try {
      for (let i = 0; i < names.length; i += BATCH_SIZE) {
        if (stopped()) {
          watched.distrust();
          return counts;
        }
        const result = await exclusive(() => syncNames(names.slice(i, i + BATCH_SIZE), forget));
        counts.added += result.added;
        counts.removed += result.removed;
      }
    } catch (error) {
      watched.distrust();
      throw error;
    }
    await exclusive(() =>
      oneAtATime(async () => {
        meta.scannedDirMtimeNs = knownDirMtime ?? dirMtime;
        await newTxn().commit(false);
        return { added: 0, removed: 0 };
      }),
    );
    return { ...counts, completed: true };
  }

  return {
    async open() {
      // Watched before anything is read: a pass completed after this sees every change since.
      changes?.close();
      changes = watchDirectoryChanges(dir, watchOptions);
      // Owner-only, as the key directory and its files are: the index names every wallet.
      await mkdir(join(dir, INDEX_DIR), { recursive: true, mode: 0o700 });
      const opened = new ClassicLevel<string, unknown>(join(dir, INDEX_DIR), {
        keyEncoding: 'utf8',
        valueEncoding: 'json',
      });
      await opened.open();
      db = opened;
      const stored = (await opened.get('m')) as IndexMeta | undefined;
      if (stored === undefined || stored.version !== INDEX_VERSION) {
        // A newer or older layout: rebuilt from the files.
        await opened.clear();
        meta = emptyMeta();
        await newTxn().commit(true);
      } else {
        meta = { ...stored };
      }
      entries.clear();
      const journaled: string[] = [];
      for await (const key of opened.keys({ gt: 'j!', lt: 'j"' })) journaled.push(key.slice(2));
      if (journaled.length > 0) await syncNames(journaled, () => undefined);
      await loadLists();
      const dirMtime = (await stat(dir, { bigint: true })).mtimeNs.toString();
      return { needsScan: meta.scannedDirMtimeNs !== dirMtime };
    },

    async close() {
      changes?.close();
      changes = undefined;
      const opened = db;
      db = undefined;
      indexedNames = undefined;
      entries.clear();
      unresolved.clear();
      invalid.clear();
      await opened?.close();
    },

    walletCount: () => meta.wallets,

    async byAddress(address) {
      const wanted = normalizeAddress(address);
      const cached = recall(wanted);
      if (cached !== undefined) return cached;
      const name = (await walletRecord(wanted))?.name;
      if (name === undefined) return undefined;
      const record = await fileRecord(undefined, name);
      return record === undefined ? undefined : entryOf(name, record);
    },

    async holds(address) {
      if (entries.has(address)) return true;
      return (await database().get(`w!${address}`, { valueEncoding: 'utf8' })) !== undefined;
    },

    async holdsMany(addresses) {
      const out = addresses.map((address) => entries.has(address));
      const unknown = addresses.filter((_, i) => !out[i]);
      if (unknown.length === 0) return out;
      const keys = unknown.map((address) => `w!${address}`);
      const values = await database().getMany(keys, { valueEncoding: 'utf8' });
      let next = 0;
      return out.map((held) => held || values[next++] !== undefined);
    },

    heldInMemory(address) {
      return indexedNames?.has(walletKey(address));
    },

    async byId(id) {
      const name = id.startsWith('?')
        ? id.slice(1)
        : ((await database().get(`e!${id}`)) as string | undefined);
      if (name === undefined) return undefined;
      const record = await fileRecord(undefined, name);
      if (record === undefined || (id.startsWith('?') && record.id !== undefined)) return undefined;
      return entryOf(name, record);
    },

    async isCurrent(entry) {
      const record = await fileRecord(undefined, entry.fileName);
      return (
        record !== undefined &&
        record.stamp === entry.stamp &&
        (record.address ?? null) === entry.address &&
        (record.id ?? `?${entry.fileName}`) === entry.id
      );
    },

    async vouching() {
      const watched = changes;
      if (watched === undefined) return undefined;
      await watched.settled();
      const since = writes;
      return (entry) => writes === since && watched.unchangedSinceRead(entry.fileName);
    },

    async current(entry, forget) {
      const read = changes?.reading(entry.fileName);
      const file = await readKeyFile(dir, entry.fileName, entry.stamp);
      if (file === 'unchanged') {
        read?.();
        return entry;
      }
      await syncNames([entry.fileName], forget);
      read?.();
      forget(entry.id);
      return entry.address !== null ? this.byAddress(entry.address) : this.byId(entry.id);
    },

    async page(after, max) {
      let gt = 'o!';
      if (after !== undefined) {
        const wallet = await walletRecord(normalizeAddress(after));
        if (wallet === undefined) return undefined;
        gt = orderKey(BigInt(wallet.createdAt), wallet.name);
      }
      const addresses: string[] = [];
      for await (const address of database().values({ gt, lt: 'o"', limit: max })) {
        addresses.push(address as string);
      }
      return addresses;
    },

    unresolved() {
      return [...unresolved]
        .sort(([nameA, a], [nameB, b]) => compareOrder(a.createdAt, nameA, b.createdAt, nameB))
        .map(([file, { ethAddress }]) => ({ file, ethAddress }));
    },

    async unresolvedEntries() {
      const found: KeyEntry[] = [];
      for (const { file } of this.unresolved()) {
        const record = await fileRecord(undefined, file);
        const entry = record === undefined ? undefined : await entryOf(file, record);
        if (entry !== undefined && entry.address === null) found.push(entry);
      }
      return found;
    },

    invalid() {
      return [...invalid]
        .map(([file, problem]) => ({ file, problem }))
        .sort((a, b) => compareStrings(a.file, b.file));
    },

    async journal(fileName) {
      await database().put(`j!${fileName}`, 1, { sync: true });
    },

    syncNames,

    async dirMtime() {
      return (await stat(dir, { bigint: true })).mtimeNs;
    },

    reject(entry, problem) {
      return oneAtATime(async () => {
        const txn = newTxn();
        const record = await removeName(txn, entry.fileName, forgetKey);
        if (record === undefined) return;
        addInvalid(txn, entry.fileName, record.stamp, BigInt(record.createdAt), problem);
        await txn.commit(false);
      });
    },

    async scan({ forget, exclusive, stopped, progress, countFirst = false }) {
      const changed = await syncChangedNames(forget, exclusive, stopped);
      if (changed !== undefined) return changed;
      const watched = changes;
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
      knownDirMtime = started.mtimeNs.toString();
      const total = countFirst ? await countNames() : meta.files;
      progress?.({ done: 0, total });
      const counts = { added: 0, removed: 0 };
      let done = 0;
      let seenIndexed = 0;
      let indexedHere = 0;
      const indexed = await loadIndexedNames();
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
        flushing = exclusive(() => syncNames(unknown, forget)).then((result) => {
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
      if (seenIndexed + indexedHere < meta.files) {
        let batch: string[] = [];
        const sweep = async () => {
          const gone = await goneNames(dir, batch);
          batch = [];
          if (gone.length === 0) return;
          const result = await exclusive(() => syncNames(gone, forget));
          counts.removed += result.removed;
        };
        for await (const key of database().keys({ gt: 'f!', lt: 'f"' })) {
          if (stopped()) return { ...counts, completed: false };
          batch.push(key.slice(2));
          if (batch.length === BATCH_SIZE) await sweep();
        }
        await sweep();
      }
      await exclusive(() =>
        oneAtATime(async () => {
          meta.scannedDirMtimeNs = knownDirMtime ?? started.mtimeNs.toString();
          const unchanged = knownDirMtime === started.mtimeNs.toString();
          meta.passedDirStamp =
            unchanged && hasSettled(started.mtimeNs, clockAtStart) ? startStamp : null;
          await newTxn().commit(false);
          return { added: 0, removed: 0 };
        }),
      );
      completed();
      return { ...counts, completed: true };
    },

    async loadNames() {
      await loadIndexedNames();
    },

    async findOwnFile(address) {
      const suffix = `--${normalizeAddress(address)}.json`;
      for await (const names of directoryNames(dir, BATCH_SIZE)) {
        const found = names.find((name) => name.endsWith(suffix));
        if (found !== undefined) return found;
      }
      return undefined;
    },

    async approximateSize() {
      return database().approximateSize('\u0000', '\uffff');
    },
  };
}
