import { copyFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { devAddressOf, listOf, useTempDirs } from '../test/fixtures';
import { createKeyStore } from './keystore';

/** Every directory listing the store starts (a pass over the directory opens it). */
const listed: string[] = [];
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    opendir: (...args: Parameters<typeof fs.opendir>) => {
      listed.push(String(args[0]));
      return fs.opendir(...args);
    },
  };
});
// A pass lists on a thread of its own (directory-lister.ts): its listings are counted here.
vi.mock('./directory-lister', async (original) => {
  const lister = await original<typeof import('./directory-lister')>();
  return {
    ...lister,
    nameBatches: (...args: Parameters<typeof lister.nameBatches>) => {
      listed.push(String(args[0]));
      return lister.nameBatches(...args);
    },
  };
});

const TINY_SCRYPT = { N: 16, r: 8, p: 1 };
const newDir = useTempDirs();
afterEach(() => {
  listed.length = 0;
});

/** `watchDirectory` off by default here: these passes are what a refresh does without a trusted watch. */
async function openStore(dir: string, watchDirectory = false) {
  const store = createKeyStore({
    dir,
    addressOf: devAddressOf,
    scrypt: TINY_SCRYPT,
    watchDirectory,
  });
  await store.open();
  await store.indexed();
  return store;
}

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

/** Long settled, as a store untouched for a while is; always the same, as `rsync -t` would set. */
const LONG_AGO = new Date('2026-01-01T00:00:00Z');

async function ageDirectory(dir: string): Promise<void> {
  await utimes(dir, LONG_AGO, LONG_AGO);
}

/** How many times `run` lists `dir`. */
async function listingsOf(dir: string, run: () => Promise<unknown>): Promise<number> {
  const before = listed.filter((path) => path === dir).length;
  await run();
  return listed.filter((path) => path === dir).length - before;
}

describe('walletRefresh on a directory unchanged since the last complete pass', () => {
  it('lists nothing, after a restart too; a name come or gone makes it list again', async () => {
    const dir = await newDir();
    const other = await newDir();
    const created = await walletsIn(dir, 3);
    const copied = await walletsIn(other, 1);
    await ageDirectory(dir);
    // The directory changed since the index saw it: the open's build lists it, and vouches for it.
    let store = await openStore(dir);
    expect(await listingsOf(dir, () => store.refresh())).toBe(0);
    await store.close();
    store = await openStore(dir);
    const unchanged = await listingsOf(dir, async () => {
      expect(await store.refresh()).toMatchObject({ added: 0, removed: 0, loaded: 3 });
    });
    expect(unchanged).toBe(0);

    // A file copied in by hand, the directory's mtime then set back as `rsync -t` or `touch -d`
    // would: its ctime (which no tool sets) still says it changed.
    const [copiedName] = await keyFiles(other);
    await copyFile(join(other, copiedName!), join(dir, copiedName!));
    await ageDirectory(dir);
    expect(await store.refresh()).toMatchObject({ added: 1, removed: 0, loaded: 4 });
    expect(new Set(await listOf(store))).toEqual(new Set([...created, ...copied]));
    expect(await listingsOf(dir, () => store.refresh())).toBe(0);

    // A file removed by hand, the mtime set back again.
    await rm(join(dir, copiedName!));
    await ageDirectory(dir);
    expect(await store.refresh()).toMatchObject({ added: 0, removed: 1, loaded: 3 });
    expect(await store.has(copied[0]!)).toBe(false);
    await store.close();
  });

  it('lists again after a pass that started right after a change (one clock tick may hide another)', async () => {
    const dir = await newDir();
    const other = await newDir();
    await walletsIn(dir, 2);
    await walletsIn(other, 1);
    await ageDirectory(dir);
    const store = await openStore(dir);
    await store.refresh();
    const [name] = await keyFiles(other);
    await copyFile(join(other, name!), join(dir, name!));
    // The directory changed just now: this pass finds the file but vouches for nothing.
    expect(await store.refresh()).toMatchObject({ added: 1, loaded: 3 });
    expect(await listingsOf(dir, () => store.refresh())).toBe(1);
    await store.close();
  });
});

describe.runIf(process.platform === 'linux')('walletRefresh with the directory watched', () => {
  it('reads only the names changed since the pass after open: copied in, removed, changed in place', async () => {
    const dir = await newDir();
    const other = await newDir();
    const created = await walletsIn(dir, 3);
    const copied = await walletsIn(other, 2);
    const store = await openStore(dir, true);
    const [first, second] = await keyFiles(other);
    const files = await keyFiles(dir);
    const refreshes = await listingsOf(dir, async () => {
      await copyFile(join(other, first!), join(dir, first!));
      expect(await store.refresh()).toMatchObject({ added: 1, removed: 0, loaded: 4 });
      await copyFile(join(other, second!), join(dir, second!));
      await rm(join(dir, files[0]!));
      // A file changed in place (no name came or went): the watch says so, the refresh reads it.
      await writeFile(join(dir, files[1]!), 'garbage');
      expect(await store.refresh()).toMatchObject({ added: 1, removed: 2, loaded: 3 });
      expect(await store.refresh()).toMatchObject({ added: 0, removed: 0, loaded: 3 });
    });
    expect(refreshes).toBe(0);
    expect(new Set(await listOf(store))).toEqual(new Set([created[2], ...copied]));
    expect(store.invalidFiles()).toEqual([{ file: files[1], problem: 'not JSON' }]);
    await store.close();
  });
});
