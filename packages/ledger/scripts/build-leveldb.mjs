#!/usr/bin/env node
/**
 * Builds classic-level's LevelDB from its bundled sources with one change: no seek compactions
 * (docs/decisions.md, "LevelDB without seek compactions"). Run by the workspace's `postinstall`;
 * run it again by hand after a `npm rebuild classic-level`:
 * `node build-leveldb.mjs [classic-level directory]` (default: the one @chain/ledger resolves).
 *
 * LevelDB 1.20 charges a table file each time a read looks into it before finding its key in a
 * lower level, bloom filter or not, and compacts a file after about one such read per 16 KiB of
 * it. A node reading random accounts of a large state then compacts for its reads, not its writes:
 * 170 MB of compaction for 13 MB of writes during a block import at 10M accounts, instead of 9 MB.
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
const SOURCE = 'deps/leveldb/leveldb-1.20/db/version_set.cc';
const CHARGE = `    f->allowed_seeks--;
    if (f->allowed_seeks <= 0 && file_to_compact_ == NULL) {`;
const NO_CHARGE = `    // chain-node: no seek compactions (bloom filters make a look into a file cheap).
    if (false) {`;

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

function patchSource(dir) {
  const path = join(dir, SOURCE);
  const text = readFileSync(path, 'utf8');
  if (text.includes(NO_CHARGE)) return;
  if (!text.includes(CHARGE))
    throw new Error(`${SOURCE} does not hold the code this patch changes`);
  writeFileSync(path, text.replace(CHARGE, NO_CHARGE));
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
  const patch = createHash('sha256').update(CHARGE).update(NO_CHARGE).digest('hex').slice(0, 16);
  const release = join(dir, 'build', 'Release');
  const marker = join(release, MARKER);
  if (existsSync(join(release, 'classic_level.node')) && existsSync(marker)) {
    if (JSON.parse(readFileSync(marker, 'utf8')).patch === patch) return;
  }
  const gyp = nodeGyp();
  const headers = nodeDir();
  if (gyp === undefined || headers === undefined) {
    say(
      `no ${gyp === undefined ? 'node-gyp' : 'Node headers'} here: prebuilt LevelDB kept (seek compactions on)`,
    );
    return;
  }
  say('building LevelDB without seek compactions (about 15 s)');
  try {
    patchSource(dir);
    execFileSync(process.execPath, [gyp, 'rebuild', `--nodedir=${headers}`, '-j', '2'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    keepOnlyBinary(dir);
    writeFileSync(marker, `${JSON.stringify({ patch, change: 'no seek compactions' })}\n`);
    say('built');
  } catch (error) {
    // A half-built directory would shadow the prebuilt binary (node-gyp-build looks there first).
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    const detail =
      error instanceof Error && 'stderr' in error
        ? String(error.stderr).trim().split('\n').slice(-3).join(' | ')
        : String(error);
    say(`build failed, prebuilt LevelDB kept (seek compactions on): ${detail}`);
  }
}

main();
