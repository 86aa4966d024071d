import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../test/fixtures';
import { createWalletLocks, LOCKS_DIR } from './lock-state';

const newDir = useTempDirs();

describe('wallet locks', () => {
  it('reads the locked wallets from .locks at load, and only names that are addresses', async () => {
    const dir = await newDir();
    await mkdir(join(dir, LOCKS_DIR), { recursive: true });
    await writeFile(join(dir, LOCKS_DIR, 'ab12cd'), '');
    await writeFile(join(dir, LOCKS_DIR, '.hidden'), '');
    const locks = createWalletLocks(dir);
    expect(locks.isLocked('ab12cd')).toBe(false);
    await locks.load();
    expect(locks.isLocked('ab12cd')).toBe(true);
    expect(locks.isLocked('.hidden')).toBe(false);
    expect(locks.isLocked('ef34')).toBe(false);
  });

  it('loads no lock when .locks does not exist', async () => {
    const locks = createWalletLocks(await newDir());
    await locks.load();
    expect(locks.isLocked('ab12cd')).toBe(false);
  });

  it('changes the file first, then what isLocked says; a second store sees the files', async () => {
    const dir = await newDir();
    const locks = createWalletLocks(dir);
    await locks.load();
    expect(await locks.setLocked('ab12cd', true)).toBe(true);
    expect(locks.isLocked('ab12cd')).toBe(true);
    expect(await locks.setLocked('ab12cd', true)).toBe(false);
    expect(await readdir(join(dir, LOCKS_DIR))).toEqual(['ab12cd']);
    const other = createWalletLocks(dir);
    await other.load();
    expect(other.isLocked('ab12cd')).toBe(true);
    expect(await locks.setLocked('ab12cd', false)).toBe(true);
    expect(locks.isLocked('ab12cd')).toBe(false);
    expect(await locks.setLocked('ab12cd', false)).toBe(false);
    expect(await readdir(join(dir, LOCKS_DIR))).toEqual([]);
  });
});
