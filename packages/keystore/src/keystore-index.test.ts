import { copyFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { devAddressOf, listOf, rejectionOf, useTempDirs, writeWalletFiles } from '../test/fixtures';
import { createKeyIndex, INDEX_DIR } from './key-index';
import { createKeyStore, type KeyStoreOptions } from './keystore';
import { LOCK_STATE_FILE, LOCKS_DIR, writeLockState } from './lock-state';

/** The cheapest cost scrypt accepts: these tests are about files and the index, not the KDF. */
const TINY_SCRYPT = { N: 16, r: 8, p: 1 };
const newDir = useTempDirs();

function storeOf(dir: string, options: Partial<KeyStoreOptions> = {}) {
  return createKeyStore({ dir, addressOf: devAddressOf, scrypt: TINY_SCRYPT, ...options });
}

async function openStore(dir: string, options: Partial<KeyStoreOptions> = {}) {
  const store = storeOf(dir, options);
  await store.open();
  await store.indexed();
  return store;
}

/** A directory of `count` wallets (passphrase `p`), written by a store; its addresses in order. */
async function walletsIn(dir: string, count: number): Promise<string[]> {
  const writer = await openStore(dir);
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) addresses.push(await writer.create('p'));
  await writer.close();
  return addresses;
}

async function keyFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
}

function fileOf(files: string[], address: string): string {
  const found = files.find((name) => name.includes(address));
  if (found === undefined) throw new Error(`no file for ${address}`);
  return found;
}

/** Every wallet, walked in pages of `max` with `after`. */
async function walk(store: ReturnType<typeof storeOf>, max: number): Promise<string[]> {
  const all: string[] = [];
  for (;;) {
    const page = await store.page(all.at(-1), max);
    expect(page.length).toBeLessThanOrEqual(max);
    all.push(...page);
    if (page.length < max) return all;
  }
}

describe('the index', () => {
  it('lives in <dir>/.index, survives a restart, and open reads no key file', async () => {
    const dir = await newDir();
    const created = await walletsIn(dir, 5);
    expect((await stat(join(dir, INDEX_DIR))).isDirectory()).toBe(true);
    // Garbage in place of a file: an open that read the files would list it as invalid.
    const files = await keyFiles(dir);
    const spoiled = fileOf(files, created[2]!);
    // Written in place: the directory itself is unchanged, so the index is not older than it.
    await writeFile(join(dir, spoiled), 'not a key any more');

    const store = storeOf(dir);
    await store.open();
    expect(store.indexing()).toBeNull();
    expect(store.count()).toBe(5);
    expect(await listOf(store)).toEqual(created);
    expect(store.invalidFiles()).toEqual([]);
    // Its first use stats the file, sees it changed, and reads it.
    expect((await rejectionOf(store.getPrivateKey(created[2]!, 'p'))).reason).toBe(
      'UNKNOWN_WALLET',
    );
    expect(store.invalidFiles()).toEqual([{ file: spoiled, problem: 'not JSON' }]);
    expect(store.count()).toBe(4);
    expect(await store.getPrivateKey(created[4]!, 'p')).toHaveLength(32);
    await store.close();
  });

  it('is rebuilt from the files when deleted, locks included only from the index', async () => {
    const dir = await newDir();
    const created = await walletsIn(dir, 3);
    await rm(join(dir, INDEX_DIR), { recursive: true });
    const store = await openStore(dir);
    expect(await listOf(store)).toEqual(created);
    expect(store.count()).toBe(3);
    await store.close();
  });

  it('is rebuilt from the files when of the older layout (wallet records of a file name only)', async () => {
    const dir = await newDir();
    const created = await walletsIn(dir, 3);
    const db = new ClassicLevel<string, unknown>(join(dir, INDEX_DIR), { valueEncoding: 'json' });
    const meta = (await db.get('m')) as Record<string, unknown>;
    const { mtimeNs } = await stat(dir, { bigint: true });
    // Version 1, the directory as the index saw it: only the version can make the open rebuild.
    await db.put('m', { ...meta, version: 1, scannedDirMtimeNs: mtimeNs.toString() });
    const files = await keyFiles(dir);
    for (const address of created) await db.put(`w!${address}`, fileOf(files, address));
    await db.close();

    const store = storeOf(dir);
    await store.open();
    expect(store.indexing()).not.toBeNull();
    await store.indexed();
    expect(await listOf(store)).toEqual(created);
    expect(await walk(store, 1)).toEqual(created);
    expect(await store.lock(created[1]!)).toBe(true);
    expect(await store.isLocked(created[1]!)).toBe(true);
    await store.close();
  });

  it('repairs at open a file written without its index entry, and an entry whose file is gone', async () => {
    const dir = await newDir();
    const other = await newDir();
    const [kept, gone] = await walletsIn(dir, 2);
    const [copied] = await walletsIn(other, 1);
    await rm(join(dir, fileOf(await keyFiles(dir), gone!)));
    const copiedName = (await keyFiles(other))[0]!;
    await copyFile(join(other, copiedName), join(dir, copiedName));

    const store = await openStore(dir);
    // `copied` was made after `kept`: creation order.
    expect(await listOf(store)).toEqual([kept, copied]);
    expect(await store.has(gone!)).toBe(false);
    expect(store.count()).toBe(2);
    expect(await store.getPrivateKey(copied!, 'p')).toHaveLength(32);
    await store.close();
  });

  it('replays the journal of a write the crash interrupted, without a scan of the directory', async () => {
    const dir = await newDir();
    const other = await newDir();
    const [first] = await walletsIn(dir, 1);
    const [late] = await walletsIn(other, 1);
    // The crash: the name was journaled, the file written, the index entry not.
    const name = (await keyFiles(other))[0]!;
    await copyFile(join(other, name), join(dir, name));
    const db = new ClassicLevel<string, unknown>(join(dir, INDEX_DIR), { valueEncoding: 'json' });
    await db.put(`j!${name}`, 1);
    // As if the index had seen the directory as it is now: only the journal can tell.
    const meta = (await db.get('m')) as Record<string, unknown>;
    const { mtimeNs } = await stat(dir, { bigint: true });
    await db.put('m', { ...meta, scannedDirMtimeNs: mtimeNs.toString() });
    await db.close();

    const store = storeOf(dir);
    await store.open();
    expect(store.indexing()).toBeNull();
    expect(await listOf(store)).toEqual([first, late]);
    await store.close();
  });

  it('builds in the background: calls are answered meanwhile, close interrupts, the next open resumes', async () => {
    const dir = await newDir();
    const created = await writeWalletFiles(dir, 1_200);

    const progress: Array<{ done: number; total: number }> = [];
    const first = storeOf(dir, {
      onIndexProgress: (step) => {
        progress.push(step);
      },
    });
    await first.open();
    expect(first.indexing()).toMatchObject({ finished: false });
    // A wallet not indexed yet is found by its file name.
    const last = created.at(-1)!;
    expect(await first.getPrivateKey(last, 'p')).toHaveLength(32);
    expect(await first.has(last)).toBe(true);
    expect(await first.hasMany([created[0]!, last, 'CHnot-a-wallet'])).toEqual([true, true, false]);
    // lockWallet too, though the names in memory do not hold it yet.
    expect(await first.lock(created.at(-2)!)).toBe(true);
    expect(await first.isLocked(created.at(-2)!)).toBe(true);
    await first.close();

    // Interrupted for sure: a store closed at the build's first progress step, its index built
    // anew (a fast machine may have finished the first one meanwhile).
    await rm(join(dir, INDEX_DIR), { recursive: true });
    progress.length = 0;
    let closing: Promise<void> | undefined;
    const interrupted = storeOf(dir, {
      onIndexProgress: (step) => {
        progress.push(step);
        if (step.done > 0) closing ??= interrupted.close();
      },
    });
    await interrupted.open();
    while (closing === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    await closing;
    const indexedBefore = progress.at(-1)!.done;
    expect(indexedBefore).toBeLessThan(1_200);
    expect(progress.at(-1)!.total).toBe(1_200);

    const second = storeOf(dir, {
      onIndexProgress: (step) => {
        progress.push(step);
      },
    });
    await second.open();
    expect(second.count()).toBeGreaterThan(0);
    await second.indexed();
    expect(second.indexing()).toBeNull();
    expect(progress.at(-1)).toMatchObject({ finished: true, done: 1_200, total: 1_200 });
    expect(second.count()).toBe(1_200);
    expect(await walk(second, 97)).toEqual(created);
    await second.close();

    // Complete now: the next open builds nothing.
    const third = storeOf(dir);
    await third.open();
    expect(third.indexing()).toBeNull();
    expect(third.count()).toBe(1_200);
    await third.close();
  });

  it('moves the locks of a lock-state file into .locks, once; a rebuilt index keeps them', async () => {
    const dir = await newDir();
    const [locked, free] = await walletsIn(dir, 2);
    await rm(join(dir, INDEX_DIR), { recursive: true });
    await writeLockState(dir, new Set([locked!]));

    const store = await openStore(dir);
    expect(await store.isLocked(locked!)).toBe(true);
    expect(await store.isLocked(free!)).toBe(false);
    expect((await rejectionOf(store.getPrivateKey(locked!, 'p'))).reason).toBe('WALLET_LOCKED');
    await store.close();
    await expect(stat(join(dir, LOCK_STATE_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    // One empty file per locked wallet: a lock costs the same at any store size.
    expect(await readdir(join(dir, LOCKS_DIR))).toEqual([locked]);

    const reopened = await openStore(dir);
    expect(await reopened.isLocked(locked!)).toBe(true);
    await reopened.lock(free!);
    await reopened.close();
    await rm(join(dir, INDEX_DIR), { recursive: true });
    const again = await openStore(dir);
    expect(await again.isLocked(free!)).toBe(true);
    expect(await again.isLocked(locked!)).toBe(true);
    await again.close();
  });
});

describe('wallets in memory', () => {
  it('the name set tells the indexed wallets (lockWallet reads no index), through every change', async () => {
    const dir = await newDir();
    const other = await newDir();
    const [kept, gone] = await walletsIn(dir, 2);
    const [copied] = await walletsIn(other, 1);
    const files = await keyFiles(dir);
    const index = createKeyIndex(dir, devAddressOf, () => undefined);
    await index.open();
    // Not loaded yet: the store asks the index instead.
    expect(index.heldInMemory(kept!)).toBeUndefined();
    await index.loadNames();
    expect(index.heldInMemory(kept!)).toBe(true);
    expect(index.heldInMemory(gone!)).toBe(true);
    expect(index.heldInMemory(copied!)).toBe(false);
    // The names and the wallets share the set: a file name is no wallet.
    expect(index.heldInMemory(fileOf(files, kept!))).toBe(false);

    await rm(join(dir, fileOf(files, gone!)));
    const copiedName = (await keyFiles(other))[0]!;
    await copyFile(join(other, copiedName), join(dir, copiedName));
    await index.syncNames([fileOf(files, gone!), copiedName], () => undefined);
    expect(index.heldInMemory(gone!)).toBe(false);
    expect(index.heldInMemory(copied!)).toBe(true);
    expect(index.heldInMemory(kept!)).toBe(true);
    await index.close();
    expect(index.heldInMemory(kept!)).toBeUndefined();

    // Loaded again from the index, as the changes left it.
    await index.open();
    await index.loadNames();
    expect([kept!, gone!, copied!].map((address) => index.heldInMemory(address))).toEqual([
      true,
      false,
      true,
    ]);
    await index.close();
  });

  it('a lock of an address not held creates no lock; one of a wallet copied in and refreshed does', async () => {
    const dir = await newDir();
    const other = await newDir();
    const [held] = await walletsIn(dir, 1);
    const [copied] = await walletsIn(other, 1);
    const store = await openStore(dir);
    expect(await store.lock(copied!)).toBe(false);
    expect(await store.lock('CH../../x')).toBe(false);
    await expect(readdir(join(dir, LOCKS_DIR))).rejects.toMatchObject({ code: 'ENOENT' });
    const copiedName = (await keyFiles(other))[0]!;
    await copyFile(join(other, copiedName), join(dir, copiedName));
    await store.refresh();
    expect(await store.lock(copied!)).toBe(true);
    expect(await store.lock(held!)).toBe(true);
    expect((await readdir(join(dir, LOCKS_DIR))).sort()).toEqual([copied!, held!].sort());
    expect((await rejectionOf(store.getPrivateKey(copied!, 'p'))).reason).toBe('WALLET_LOCKED');
    await store.close();
  });
});

describe('paging', () => {
  it('walks the whole store in creation order with `after`, whatever the page size', async () => {
    const dir = await newDir();
    const created = await walletsIn(dir, 40);
    const store = await openStore(dir);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 45 }), async (max) => {
        expect(await walk(store, max)).toEqual(created);
      }),
      { numRuns: 30 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 39 }),
        fc.integer({ min: 1, max: 50 }),
        async (at, max) => {
          expect(await store.page(created[at], max)).toEqual(created.slice(at + 1, at + 1 + max));
        },
      ),
      { numRuns: 50 },
    );
    const unknown = await rejectionOf(store.page(`CH${'1'.repeat(46)}`, 10));
    expect(unknown).toMatchObject({ reason: 'UNKNOWN_WALLET', param: 'after' });
    await store.close();
  });
});

describe('refresh', () => {
  it('reads new files and drops gone ones, never the files it has indexed', async () => {
    const dir = await newDir();
    const other = await newDir();
    const created = await walletsIn(dir, 4);
    const copied = await walletsIn(other, 2);
    // The whole pass (a watched directory's refresh reads the names changed, keystore-refresh.test.ts).
    const store = await openStore(dir, { watchDirectory: false });
    const files = await keyFiles(dir);

    for (const name of await keyFiles(other)) await copyFile(join(other, name), join(dir, name));
    await rm(join(dir, fileOf(files, created[0]!)));
    // A file changed in place: a whole pass does not read it (its next use does).
    const changed = fileOf(files, created[1]!);
    await writeFile(join(dir, changed), 'garbage');

    const result = await store.refresh();
    expect(result).toMatchObject({ added: 2, removed: 1, loaded: 5, invalid: [] });
    expect(await store.has(created[0]!)).toBe(false);
    expect(new Set(await listOf(store))).toEqual(
      new Set([created[1], created[2], created[3], ...copied]),
    );
    for (const address of copied) expect(await store.getPrivateKey(address, 'p')).toHaveLength(32);
    expect(await store.refresh()).toMatchObject({ added: 0, removed: 0, loaded: 5 });

    expect((await rejectionOf(store.getPrivateKey(created[1]!, 'p'))).reason).toBe(
      'UNKNOWN_WALLET',
    );
    expect(store.invalidFiles()).toEqual([{ file: changed, problem: 'not JSON' }]);
    await store.close();
  });
});
