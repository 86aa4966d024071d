import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyStoreError } from './errors';
import { type ParsedKeyFile, parseKeyFile } from './key-file';
import { creationTimeOfName } from './key-file-name';

/** Key files are well under 2 KiB; anything far larger is not one and is not read whole. */
const MAX_KEY_FILE_SIZE = 64 * 1024;

/** A file in the key directory that holds no usable key, and why. */
export interface InvalidKeyFile {
  file: string;
  problem: string;
}

/** What a candidate key file holds, or why it holds no key; with its stamp and creation time. */
export type KeyFileRead =
  | { file: ParsedKeyFile; createdAt: bigint; stamp: string }
  | { problem: string; createdAt: bigint; stamp: string };

/**
 * Hidden files (the index, the old lock state, temporary files) and editor backups (`~`) are not
 * candidates, as in geth.
 */
export function isCandidateName(name: string): boolean {
  return !name.startsWith('.') && !name.endsWith('~');
}

/**
 * Reads one candidate key file. null for what is not a file at all (a directory, or a file
 * removed); `unchanged` when its stamp is `knownStamp` (one stat, no read). A file that is
 * unreadable, not JSON or not a v3 key is a `problem`, never thrown.
 *
 * Creation time: nanoseconds since the epoch from a geth-style file name, else the modification
 * time (which, unlike the birth time, our rewrites keep and `cp -p` or `touch` can set).
 */
export async function readKeyFile(
  dir: string,
  fileName: string,
  knownStamp?: string,
): Promise<KeyFileRead | null | 'unchanged'> {
  const path = join(dir, fileName);
  let info: Awaited<ReturnType<typeof statBigint>>;
  try {
    info = await statBigint(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: describeProblem(error), createdAt: 0n, stamp: '' };
  }
  if (!info.isFile()) return null;
  const stamp = `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`;
  if (stamp === knownStamp) return 'unchanged';
  const createdAt = creationTimeOfName(fileName) ?? info.mtimeNs;
  try {
    if (info.size > BigInt(MAX_KEY_FILE_SIZE)) {
      throw new KeyStoreError('INVALID_KEY_FILE', `larger than ${MAX_KEY_FILE_SIZE} bytes`);
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new KeyStoreError('INVALID_KEY_FILE', 'not JSON');
    }
    return { file: parseKeyFile(json), createdAt, stamp };
  } catch (error) {
    return { problem: describeProblem(error), createdAt, stamp };
  }
}

function statBigint(path: string) {
  return stat(path, { bigint: true });
}

function describeProblem(error: unknown): string {
  if (error instanceof KeyStoreError) return error.message.replace(/^invalid key file: /, '');
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? 'unreadable' : `unreadable (${code})`;
}
