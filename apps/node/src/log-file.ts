import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * `--log-file`'s writer: the live log is always `path`, as geth's and bitcoind's are; when it would
 * grow past `maxBytes` it is renamed `path.1` (older rotations move up to `path.2` ... `path.N`, the
 * oldest beyond `count` deleted) and a new `path` is opened.
 *
 * Not rotating-file-stream (which names files this way too) because that is an asynchronous stream:
 * what it buffers is lost when the process exits or dies, whereas every write here is done when
 * `write` returns, rotation included, so no record is lost or split, whenever the node stops.
 */
export interface RotatingFile {
  /** Appends `chunk` (one whole record), rotating first if it would take the file past the size. */
  write(chunk: string): boolean;
  /** pino's flush hook: writes are synchronous, nothing is pending. */
  flushSync(): void;
  /** Closes the live file; later writes are dropped. */
  close(): void;
  readonly path: string;
}

interface RotatingFileOptions {
  path: string;
  /** The live file is rotated before a write would take it past this many bytes. */
  maxBytes: number;
  /** Rotated files kept beside the live one (`path.1` ... `path.count`). */
  count: number;
  /** Where a failure to write or rotate is reported (once per kind until it works again). */
  onError?: (error: Error) => void;
}

const UNITS: Record<string, number> = { '': 1024 ** 2, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** `500k`, `10m`, `1g`, or a bare number of MB (`--log-file-size`) in bytes; throws when malformed. */
export function parseLogFileSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(text.trim());
  if (!match) throw new Error(`a log file size such as 500k, 10m or 1g, got ${text}`);
  const bytes = Math.floor(Number(match[1]) * UNITS[match[2]!.toLowerCase()]!);
  if (bytes < 1) throw new Error(`a log file size of at least 1 byte, got ${text}`);
  return bytes;
}

/** The name of the `index`-th rotation of `path` (`node.log.1` is the newest). */
function rotatedName(path: string, index: number): string {
  return `${path}.${index}`;
}

export function openRotatingFile(options: RotatingFileOptions): RotatingFile {
  const { path, maxBytes, count } = options;
  const report =
    options.onError ?? ((error) => process.stderr.write(`chain-node: ${error.message}\n`));
  mkdirSync(dirname(path), { recursive: true });
  removeBeyond(path, count);
  let fd: number | undefined = openSync(path, 'a');
  let size = fstatSync(fd).size;
  const failing = new Set<string>();
  let closed = false;

  const fail = (kind: string, error: unknown) => {
    if (failing.has(kind)) return;
    failing.add(kind);
    const reason = error instanceof Error ? error.message : String(error);
    report(new Error(`log file ${path}: ${kind} failed (${reason})`));
  };

  const rotate = () => {
    closeSync(fd!);
    fd = undefined;
    try {
      if (count < 1) {
        rmSync(path, { force: true });
      } else {
        let last = 0;
        while (last < count && existsSync(rotatedName(path, last + 1))) last++;
        if (last === count) {
          rmSync(rotatedName(path, count), { force: true });
          last--;
        }
        for (let index = last; index >= 1; index--) {
          renameSync(rotatedName(path, index), rotatedName(path, index + 1));
        }
        renameSync(path, rotatedName(path, 1));
      }
      failing.delete('rotation');
    } catch (error) {
      // The records go on to the same file rather than nowhere.
      fail('rotation', error);
    } finally {
      fd = openSync(path, 'a');
      size = fstatSync(fd).size;
    }
  };

  return {
    path,
    write(chunk: string): boolean {
      if (closed) return false;
      const bytes = Buffer.from(chunk, 'utf8');
      try {
        if (fd === undefined) {
          fd = openSync(path, 'a');
          size = fstatSync(fd).size;
        }
        if (size > 0 && size + bytes.length > maxBytes) rotate();
        let written = 0;
        while (written < bytes.length) {
          written += writeSync(fd!, bytes, written, bytes.length - written);
        }
        size += bytes.length;
        failing.delete('write');
      } catch (error) {
        // Reported once; the console still has the record, the next write tries again.
        fail('write', error);
      }
      return true;
    },
    flushSync() {},
    close() {
      closed = true;
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}

/** Deletes rotations numbered above `count` (left by a run with a higher --log-file-count). */
function removeBeyond(path: string, count: number) {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const index = name.slice(prefix.length);
    if (/^\d+$/.test(index) && Number(index) > count) {
      rmSync(join(dirname(path), name), { force: true });
    }
  }
}
