import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyStoreError } from './errors';
import { type ParsedKeyFile, parseKeyFile } from './key-file';
import { creationTimeOfName } from './key-file-name';

/** Key files are well under 2 KiB; anything far larger is not one and is not read whole. */
const MAX_KEY_FILE_SIZE = 64 * 1024;

export interface KeyFileRecord {
  fileName: string;
  /**
   * Nanoseconds since the epoch: from a geth-style file name, else the modification time (which,
   * unlike the birth time, our rewrites keep and `cp -p` or `touch` can set).
   */
  createdAt: bigint;
  file: ParsedKeyFile;
  /**
   * The key's identity: its Ethereum-style address, 40 lowercase hex characters, or null for a file
   * that does not say (the v3 format makes `address` optional): known once it is decrypted.
   */
  ethAddress: string | null;
}

/** A file in the key directory that holds no usable key, and why. */
export interface InvalidKeyFile {
  file: string;
  problem: string;
}

interface KeyDirectoryScan {
  /** In creation order. */
  records: KeyFileRecord[];
  invalid: InvalidKeyFile[];
}

/**
 * Reads every candidate key file in `dir`. Hidden files (our lock state and temporary files) and
 * editor backups (`~`) are not candidates, as in geth. A file that is unreadable, not JSON, not a
 * v3 key, or a second copy of a key already seen is reported in `invalid`, never thrown.
 */
export async function scanKeyDirectory(dir: string): Promise<KeyDirectoryScan> {
  const names = (await readdir(dir)).filter((name) => !name.startsWith('.') && !name.endsWith('~'));
  const invalid: InvalidKeyFile[] = [];
  const records: KeyFileRecord[] = [];
  for (const name of names) {
    try {
      const record = await readKeyFile(dir, name);
      if (record !== null) records.push(record);
    } catch (error) {
      invalid.push({ file: name, problem: describeProblem(error) });
    }
  }
  records.sort((a, b) =>
    a.createdAt === b.createdAt
      ? compareStrings(a.fileName, b.fileName)
      : a.createdAt < b.createdAt
        ? -1
        : 1,
  );
  const seen = new Map<string, string>();
  const unique = records.filter((record) => {
    if (record.ethAddress === null) return true;
    const first = seen.get(record.ethAddress);
    if (first === undefined) {
      seen.set(record.ethAddress, record.fileName);
      return true;
    }
    invalid.push({ file: record.fileName, problem: `holds the same key as ${first}` });
    return false;
  });
  invalid.sort((a, b) => compareStrings(a.file, b.file));
  return { records: unique, invalid };
}

/** null for what is not a file at all (a directory, or a file removed since the listing). */
async function readKeyFile(dir: string, fileName: string): Promise<KeyFileRecord | null> {
  const path = join(dir, fileName);
  let info: Awaited<ReturnType<typeof statBigint>>;
  let text: string;
  try {
    info = await statBigint(path);
    if (!info.isFile()) return null;
    if (info.size > BigInt(MAX_KEY_FILE_SIZE)) {
      throw new KeyStoreError('INVALID_KEY_FILE', `larger than ${MAX_KEY_FILE_SIZE} bytes`);
    }
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
  const file = parseKeyFile(json);
  const createdAt = creationTimeOfName(fileName) ?? info.mtimeNs;
  return { fileName, createdAt, file, ethAddress: file.ethAddress };
}

function statBigint(path: string) {
  return stat(path, { bigint: true });
}

function describeProblem(error: unknown): string {
  if (error instanceof KeyStoreError) return error.message.replace(/^invalid key file: /, '');
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? 'unreadable' : `unreadable (${code})`;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
