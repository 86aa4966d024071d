#!/usr/bin/env node
/**
 * Builds classic-level's LevelDB from its bundled sources with two changes: no seek compactions
 * (docs/decisions.md, "LevelDB without seek compactions") and table files read by pread, never
 * mapped (docs/decisions.md, "LevelDB table files not mapped"). Run by the workspace's `postinstall`;
 * run it again by hand after a `npm rebuild classic-level`:
 * `node build-leveldb.mjs [classic-level directory]` (default: the one @chain/ledger resolves).
 *
 * LevelDB 1.20 charges a table file each time a read looks into it before finding its key in a
 * lower level, bloom filter or not, and compacts a file after about one such read per 16 KiB of
 * it. A node reading random accounts of a large state then compacts for its reads, not its writes:
 * 170 MB of compaction for 13 MB of writes during a block import at 10M accounts, instead of 9 MB.
 *
 * LevelDB's posix env maps up to 1000 table files into the process (the whole file, MAP_SHARED):
 * each page a read touches then counts in the node's RSS (RssFile) until the file is closed, 819 MB
 * of a 1,161 MB RSS at 10M grown accounts (issue 45). Read by pread instead, the same pages are the
 * kernel's page cache, outside the process's RSS, and the blocks read land in LevelDB's block cache
 * (bounded, 8 MB by default) where mapped ones never did.
 *
 * A chained batch's native contents (every put of a block, hundreds of KB) were freed only when V8
 * collected the batch's JS object, which V8 sees as a few bytes: under a write load dozens of
 * written batches waited for a full collection in malloc's heap, RssAnon growing with the heap's
 * live size (issue 45, docs/decisions.md "Written LevelDB batches freed at once"). The batch
 * worker now empties the batch once written (abstract-level closes a batch at its write: nothing
 * reads it again).
 *
 * classic-level copies each key and value it is given into a buffer of its own (`new char[size]`)
 * and frees it after use only when not empty (`DisposeSliceBuffer`): every empty value put was 32
 * bytes of malloc's heap lost for good. The history index's entries are keys with empty values,
 * two for each transfer: RssAnon grew 6-7 MB per 100k transfers, without bound (issue 45,
 * docs/decisions.md "Empty LevelDB values freed"). The buffer is now freed whatever its size.
 *
 * Never fails the install: without a compiler, Python or Node's headers it says why and leaves the
 * prebuilt binary in use (the same database format and answers, slower at a large state). The
 * node logs a warning at start in that case (`levelDbBuild` in @chain/ledger).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file beside the built binary that says which change it carries (read by `levelDbBuild`). */
const MARKER = 'chain-node-leveldb.json';
const CLASSIC_LEVEL_VERSION = '3.0.0';
/** Each change: the file, the code it replaces, what replaces it. */
const PATCHES = [
  {
    source: 'deps/leveldb/leveldb-1.20/db/version_set.cc',
    from: `    f->allowed_seeks--;
    if (f->allowed_seeks <= 0 && file_to_compact_ == NULL) {`,
    to: `    // chain-node: no seek compactions (bloom filters make a look into a file cheap).
    if (false) {`,
  },
  {
    source: 'deps/leveldb/leveldb-1.20/util/env_posix.cc',
    from: `  mmap_limit = sizeof(void*) >= 8 ? 1000 : 0;`,
    to: `  // chain-node: no mapped table files (their pages would count in the process's RSS).
  mmap_limit = 0;`,
  },
  {
    source: 'binding.cc',
    from: `  void DoExecute () override {
    if (batch_->hasData_) {
      SetStatus(batch_->Write(sync_));
    }
  }`,
    to: `  void DoExecute () override {
    if (batch_->hasData_) {
      SetStatus(batch_->Write(sync_));
    }
    // chain-node: a written batch is closed; its contents freed now, not when V8 collects it.
    delete batch_->batch_;
    batch_->batch_ = new leveldb::WriteBatch();
    batch_->hasData_ = false;
  }`,
  },
  {
    source: 'binding.cc',
    from: `static void DisposeSliceBuffer (leveldb::Slice slice) {
  if (!slice.empty()) delete [] slice.data();
}`,
    to: `static void DisposeSliceBuffer (leveldb::Slice slice) {
  // chain-node: ToSlice allocates an empty key or value's buffer too (new char[0]): free it.
  delete [] slice.data();
}`,
  },
];
/** What the marker says the binary carries (read by `levelDbBuild`). */
const CHANGES = [
  'no seek compactions',
  'no mapped table files',
  'written batches freed at once',
  'empty values freed',
];

function say(message) {
  console.log(`build-leveldb: ${message}`);
}

function classicLevelDir() {
  const require = createRequire(fileURLToPath(new URL('../package.json', import.meta.url)));
  return dirname(require.resolve('classic-level/package.json'));
}

/** node-gyp as npm ships it (npm sets npm_config_node_gyp for scripts), else beside npm. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  return candidates.find((path) => path !== undefined && existsSync(path));
}

/** Node's own headers, installed with it (node-gyp would otherwise download them). */
function nodeDir() {
  const root = join(dirname(process.execPath), '..');
  return existsSync(join(root, 'include', 'node', 'common.gypi')) ? root : undefined;
}

/**
 * Checks every file before changing any: a source it does not know is left as it was. A file
 * several patches change (binding.cc) is changed by all of them, then written once.
 */
function patchSources(dir) {
  const texts = new Map();
  for (const { source, from, to } of PATCHES) {
    const text = texts.get(source) ?? readFileSync(join(dir, source), 'utf8');
    if (!text.includes(to) && !text.includes(from))
      throw new Error(`${source} does not hold the code this patch changes`);
    texts.set(source, text.includes(to) ? text : text.replace(from, to));
  }
  for (const [source, text] of texts) {
    if (text !== readFileSync(join(dir, source), 'utf8')) writeFileSync(join(dir, source), text);
  }
}

/** Drops the build's intermediate files (objects, static libraries: about 10 MB). */
function keepOnlyBinary(dir) {
  const build = join(dir, 'build');
  const binary = readFileSync(join(build, 'Release', 'classic_level.node'));
  rmSync(build, { recursive: true, force: true });
  mkdirSync(join(build, 'Release'), { recursive: true });
  writeFileSync(join(build, 'Release', 'classic_level.node'), binary, { mode: 0o755 });
}

function main() {
  const dir = process.argv[2] ?? classicLevelDir();
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  if (version !== CLASSIC_LEVEL_VERSION) {
    say(
      `classic-level ${version} is not the ${CLASSIC_LEVEL_VERSION} this patch is for: prebuilt binary kept`,
    );
    return;
  }
  const hash = createHash('sha256');
  for (const { from, to } of PATCHES) hash.update(from).update(to);
  const patch = hash.digest('hex').slice(0, 16);
  const release = join(dir, 'build', 'Release');
  const marker = join(release, MARKER);
  if (existsSync(join(release, 'classic_level.node')) && existsSync(marker)) {
    if (JSON.parse(readFileSync(marker, 'utf8')).patch === patch) return;
  }
  const gyp = nodeGyp();
  const headers = nodeDir();
  if (gyp === undefined || headers === undefined) {
    say(
      `no ${gyp === undefined ? 'node-gyp' : 'Node headers'} here: prebuilt LevelDB kept (seek compactions on, table files mapped)`,
    );
    return;
  }
  say(
    'building LevelDB without seek compactions and mapped table files, batches freed once written, empty values freed (about 15 s)',
  );
  try {
    patchSources(dir);
    execFileSync(process.execPath, [gyp, 'rebuild', `--nodedir=${headers}`, '-j', '2'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    keepOnlyBinary(dir);
    writeFileSync(marker, `${JSON.stringify({ patch, changes: CHANGES })}\n`);
    say('built');
  } catch (error) {
    // A half-built directory would shadow the prebuilt binary (node-gyp-build looks there first).
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    const detail =
      error instanceof Error && 'stderr' in error
        ? String(error.stderr).trim().split('\n').slice(-3).join(' | ')
        : String(error);
    say(`build failed, prebuilt LevelDB kept (seek compactions on, table files mapped): ${detail}`);
  }
}

main();
