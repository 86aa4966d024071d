import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { levelDbBuild } from './leveldb-build';

const build = levelDbBuild();
/** A small memtable, so that a few hundred KB of writes make table files. */
const WRITE_BUFFER = 64 * 1024;
const OLD_KEYS = 20_000;

function key(n: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32BE(n, 4);
  return out;
}

function value(n: number): Buffer {
  return Buffer.alloc(64, n & 0xff);
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openDb(): Promise<ClassicLevel<Buffer, Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldb-build-'));
  dirs.push(dir);
  const db = new ClassicLevel<Buffer, Buffer>(dir, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    writeBufferSize: WRITE_BUFFER,
  });
  await db.open();
  return db;
}

/** LevelDB's per-level compaction table, once its background work has stopped changing it. */
async function settledStats(db: ClassicLevel<Buffer, Buffer>): Promise<string> {
  let last = await db.getProperty('leveldb.stats');
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = await db.getProperty('leveldb.stats');
    if (now === last) return now;
    last = now;
  }
}

/** The levels of a `leveldb.stats` table that hold table files. */
function levelsWithFiles(stats: string): number {
  return stats.split('\n').filter((line) => /^\s+\d+\s+[1-9]/.test(line)).length;
}

async function putRange(db: ClassicLevel<Buffer, Buffer>, keys: number[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1_000) {
    await db.batch(
      keys.slice(i, i + 1_000).map((n) => ({ type: 'put', key: key(n), value: value(n) })),
    );
  }
}

describe('the LevelDB that chain-node builds (scripts/build-leveldb.mjs)', () => {
  it.skipIf(build.seekCompactions)(
    'compacts for writes, never for reads that look into a file before the one holding their key',
    async () => {
      const db = await openDb();
      try {
        // Old entries in a lower level, then one table file above them spanning their whole range:
        // every read of an old key looks into that file first (its bloom filter says no).
        await putRange(
          db,
          Array.from({ length: OLD_KEYS }, (_, i) => 2 * i),
        );
        await db.compactRange(key(0), key(2 * OLD_KEYS));
        await putRange(
          db,
          Array.from({ length: 1_500 }, (_, i) => 27 * i + 1),
        );
        const before = await settledStats(db);
        expect(levelsWithFiles(before)).toBeGreaterThanOrEqual(2);

        // Prebuilt LevelDB 1.20 compacts a file after 100 such reads; these are 50 times that.
        const reads = Array.from({ length: 5_000 }, (_, i) => key(2 * ((i * 7_919) % OLD_KEYS)));
        for (let i = 0; i < reads.length; i += 100) {
          const values = await db.getMany(reads.slice(i, i + 100));
          expect(values.every((v) => v !== undefined)).toBe(true);
        }
        expect(await settledStats(db)).toBe(before);

        // Writes still compact: more table files than level 0 holds are merged down.
        await putRange(
          db,
          Array.from({ length: 8_000 }, (_, i) => 5 * i + 3),
        );
        expect(await settledStats(db)).not.toBe(before);
      } finally {
        await db.close();
      }
    },
  );
});

describe('the LevelDB that chain-node builds: table files', () => {
  it.skipIf(build.mapsTableFiles)(
    'reads table files by pread, none of them mapped into the process',
    async () => {
      const db = await openDb();
      try {
        await putRange(
          db,
          Array.from({ length: OLD_KEYS }, (_, i) => i),
        );
        await db.compactRange(key(0), key(OLD_KEYS));
        const reads = Array.from({ length: 2_000 }, (_, i) => key((i * 7_919) % OLD_KEYS));
        for (let i = 0; i < reads.length; i += 100) {
          const values = await db.getMany(reads.slice(i, i + 100));
          expect(values.every((v) => v !== undefined)).toBe(true);
        }
        // The reads went to table files (the memtable was flushed by the compaction)...
        const tables = (await readdir(db.location)).filter((name) => name.endsWith('.ldb'));
        expect(tables.length).toBeGreaterThan(0);
        // ...and the process maps none of them: the prebuilt binary maps each one it opens.
        const maps = await readFile('/proc/self/maps', 'utf8');
        const mapped = maps.split('\n').filter((line) => line.includes(db.location));
        expect(mapped).toEqual([]);
      } finally {
        await db.close();
      }
    },
  );
});

/** The process's anonymous resident memory (malloc's heaps and V8's), in bytes. */
async function rssAnonBytes(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/^RssAnon:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

describe('the LevelDB that chain-node builds: written batches', () => {
  it.skipIf(!build.freesWrittenBatches || process.platform !== 'linux')(
    'frees a chained batch once written, while its JS object is still held',
    async () => {
      const db = await openDb();
      const BATCHES = 200;
      const PUTS = 1_000;
      const VALUE_BYTES = 300;
      const content = BATCHES * PUTS * VALUE_BYTES;
      try {
        // Held as the node's written batches are until a full collection: the prebuilt binary
        // keeps each one's puts in malloc's heap meanwhile (72 MB of RssAnon for these 60 MB).
        const held: unknown[] = [];
        const before = await rssAnonBytes();
        for (let b = 0; b < BATCHES; b++) {
          const batch = db.batch();
          for (let i = 0; i < PUTS; i++) batch.put(key(b * PUTS + i), Buffer.alloc(VALUE_BYTES, b));
          await batch.write();
          held.push(batch);
        }
        expect(await rssAnonBytes()).toBeLessThan(before + content / 2);
        expect(held).toHaveLength(BATCHES);
        // The writes are there all the same.
        expect(await db.get(key(BATCHES * PUTS - 1))).toEqual(
          Buffer.alloc(VALUE_BYTES, BATCHES - 1),
        );
      } finally {
        await db.close();
      }
    },
  );
});

describe('the LevelDB that chain-node builds: empty values', () => {
  it.skipIf(!build.freesEmptyValues || process.platform !== 'linux')(
    'frees the copy of each empty value put, as the history index puts two a transfer',
    async () => {
      const db = await openDb();
      const BATCHES = 1_000;
      const PUTS = 1_000;
      const EMPTY = new Uint8Array(0);
      /** What the prebuilt binary loses: a 32-byte chunk of malloc's heap for each empty value. */
      const lost = BATCHES * PUTS * 32;
      const putEmpty = async (from: number, batches: number) => {
        for (let b = from; b < from + batches; b++) {
          const batch = db.batch();
          for (let i = 0; i < PUTS; i++) batch.put(key(b * PUTS + i), EMPTY as Buffer);
          await batch.write();
        }
      };
      try {
        // A first round warms the heaps (V8's, the memtable's), so that what follows is the puts.
        await putEmpty(0, 100);
        const before = await rssAnonBytes();
        await putEmpty(100, BATCHES);
        // The prebuilt binary: 37 MB more RssAnon for these million puts (with 1-byte values: 3 MB).
        expect(await rssAnonBytes()).toBeLessThan(before + lost / 3);
        expect(await db.get(key((100 + BATCHES) * PUTS - 1))).toEqual(Buffer.alloc(0));
      } finally {
        await db.close();
      }
    },
  );
});

describe('scripts/build-leveldb.mjs', () => {
  const script = fileURLToPath(new URL('../../../scripts/build-leveldb.mjs', import.meta.url));
  const VERSION_SET = 'deps/leveldb/leveldb-1.20/db/version_set.cc';
  const ENV_POSIX = 'deps/leveldb/leveldb-1.20/util/env_posix.cc';
  /** The code of version_set.cc the script changes. */
  const SEEK_CHARGE = `    f->allowed_seeks--;
    if (f->allowed_seeks <= 0 && file_to_compact_ == NULL) {`;

  /** A classic-level directory with only what the script reads before it builds. */
  async function fakeClassicLevel(
    version: string,
    versionSet: string,
    envPosix = 'void other() {}\n',
  ): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'fake-classic-level-'));
    dirs.push(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'classic-level', version }));
    await mkdir(join(dir, 'deps/leveldb/leveldb-1.20/db'), { recursive: true });
    await mkdir(join(dir, 'deps/leveldb/leveldb-1.20/util'), { recursive: true });
    await writeFile(join(dir, VERSION_SET), versionSet);
    await writeFile(join(dir, ENV_POSIX), envPosix);
    return dir;
  }

  function run(dir: string): string {
    // Never fails the install: a non-zero exit would throw here.
    return execFileSync(process.execPath, [script, dir], { encoding: 'utf8' });
  }

  it('keeps the prebuilt binary of a classic-level it was not written for', async () => {
    const dir = await fakeClassicLevel('3.1.0', 'anything');
    expect(run(dir)).toMatch(/classic-level 3\.1\.0 is not the 3\.0\.0 this patch is for/);
    expect(existsSync(join(dir, 'build'))).toBe(false);
  });

  it('keeps the prebuilt binary when the source is not the one it changes, and leaves it as it was', async () => {
    const dir = await fakeClassicLevel('3.0.0', 'void other() {}\n');
    expect(run(dir)).toMatch(/prebuilt LevelDB kept \(seek compactions on, table files mapped\)/);
    expect(existsSync(join(dir, 'build'))).toBe(false);
    expect(await readFile(join(dir, VERSION_SET), 'utf8')).toBe('void other() {}\n');
  });

  it('changes no file when one of them is not the one it knows', async () => {
    const dir = await fakeClassicLevel('3.0.0', SEEK_CHARGE, 'void other() {}\n');
    // Here, with a compiler: env_posix.cc named; without one the script stops before any patch.
    expect(run(dir)).toMatch(/env_posix\.cc does not hold the code|no node-gyp|no Node headers/);
    expect(existsSync(join(dir, 'build'))).toBe(false);
    expect(await readFile(join(dir, VERSION_SET), 'utf8')).toBe(SEEK_CHARGE);
  });

  // Where LevelDB was built here (a compiler and node-gyp): the fake sources are patched, then
  // their build fails (no binding.gyp) and leaves the prebuilt binary.
  it.skipIf(build.seekCompactions)('makes every change of a file that several change', async () => {
    const dir = await fakeClassicLevel(
      '3.0.0',
      SEEK_CHARGE,
      '  mmap_limit = sizeof(void*) >= 8 ? 1000 : 0;\n',
    );
    await writeFile(
      join(dir, 'binding.cc'),
      `static void DisposeSliceBuffer (leveldb::Slice slice) {
  if (!slice.empty()) delete [] slice.data();
}
  void DoExecute () override {
    if (batch_->hasData_) {
      SetStatus(batch_->Write(sync_));
    }
  }
`,
    );
    expect(run(dir)).toMatch(/build failed, prebuilt LevelDB kept/);
    const binding = await readFile(join(dir, 'binding.cc'), 'utf8');
    expect(binding).toContain('chain-node: a written batch is closed');
    expect(binding).toContain('chain-node: ToSlice allocates');
    expect(binding).not.toContain('if (!slice.empty())');
  });
});
