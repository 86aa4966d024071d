import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Owner read/write only: key files and the lock state are nobody else's business. */
const PRIVATE_FILE_MODE = 0o600;

/**
 * Replaces `dir/name` with `data` so that a crash at any moment leaves either the old or the new
 * content, never a torn file: write a temporary file in the same directory, fsync it, rename it
 * over the target, then fsync the directory so the rename itself is durable. `mtime` lets a rewrite
 * keep the old file's modification time.
 */
export async function writeFileAtomic(
  dir: string,
  name: string,
  data: string,
  options: { mtime?: Date } = {},
): Promise<void> {
  // Hidden, so a directory scan (ours, geth's) never mistakes a half-written file for a key.
  const temporary = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  try {
    const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(data, 'utf8');
      if (options.mtime !== undefined) await handle.utimes(options.mtime, options.mtime);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, join(dir, name));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}
