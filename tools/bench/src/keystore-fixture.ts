/**
 * Key stores of a given number of wallets for keystore-scale (issue 40): key files in our format
 * (`UTC--<time>--<address>.json`, the dev network's scrypt), written by child processes side by
 * side and cached under BENCH_FIXTURE_DIR (default `<tmp>/chain-bench-keystore`) between runs, as
 * the state-scale fixtures are. A run links them into a fresh data directory (`cp -al`: the node
 * never writes a key file in place, it replaces it, so the cached files are never changed).
 */
import { execFile } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { forkTypeScript } from './ts-child-process.js';

export const DEFAULT_KEYSTORE_FIXTURE_ROOT =
  process.env.BENCH_FIXTURE_DIR ?? join(tmpdir(), 'chain-bench-keystore');
/** Files of each fixture kept aside, to be copied in by hand before a walletRefresh. */
export const EXTRA_FILES = 1_000;

export interface KeyStoreFixture {
  wallets: number;
  /** The key files (a key directory). */
  dir: string;
  /** EXTRA_FILES more key files, in no key store yet. */
  extraDir: string;
  /** The chain addresses of `dir`'s wallets, in creation order. */
  addresses(): Promise<string[]>;
}

const WORKER = fileURLToPath(new URL('./keystore-fixture-worker.ts', import.meta.url));

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function runWorker(dir: string, first: number, count: number, addresses: string) {
  const child = forkTypeScript(WORKER, { args: [dir, String(first), String(count), addresses] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`fixture worker exited (${code ?? signal})`)),
    );
  });
}

/** Writes `count` files into `dir` with one child per core; addresses in `addressesFile`. */
async function writeFiles(dir: string, first: number, count: number, addressesFile: string) {
  const workers = Math.max(1, Math.min(availableParallelism(), Math.ceil(count / 1_000)));
  const per = Math.ceil(count / workers);
  const parts = Array.from({ length: workers }, (_, w) => ({
    first: first + w * per,
    count: Math.max(0, Math.min(per, count - w * per)),
    file: `${addressesFile}.${w}`,
  })).filter((part) => part.count > 0);
  await Promise.all(parts.map((part) => runWorker(dir, part.first, part.count, part.file)));
  // In creation order: the parts are consecutive ranges of indices.
  let all = '';
  for (const part of parts) all += await readFile(part.file, 'utf8');
  await writeFile(addressesFile, all);
  await Promise.all(parts.map((part) => rm(part.file, { force: true })));
}

export async function keyStoreFixture(
  wallets: number,
  log: (message: string) => void,
  root = DEFAULT_KEYSTORE_FIXTURE_ROOT,
): Promise<KeyStoreFixture> {
  const base = join(root, String(wallets));
  const fixture: KeyStoreFixture = {
    wallets,
    dir: join(base, 'keystore'),
    extraDir: join(base, 'extra'),
    addresses: async () =>
      (await readFile(join(base, 'addresses.txt'), 'utf8')).split('\n').filter(Boolean),
  };
  if (await exists(join(base, 'complete'))) return fixture;
  log(
    `  writing ${wallets.toLocaleString('en-US')} key files into ${base} (cached for later runs)`,
  );
  const startedAt = performance.now();
  await rm(base, { recursive: true, force: true });
  await mkdir(fixture.dir, { recursive: true, mode: 0o700 });
  await mkdir(fixture.extraDir, { recursive: true, mode: 0o700 });
  await writeFiles(fixture.dir, 0, wallets, join(base, 'addresses.txt'));
  await writeFiles(fixture.extraDir, wallets, EXTRA_FILES, join(base, 'extra-addresses.txt'));
  await writeFile(join(base, 'complete'), `${new Date().toISOString()}\n`);
  log(`  key files written in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  return fixture;
}

/** Links the fixture's key files into `<datadir>/keystore` (hard links: instant, no copy). */
export async function linkKeyStore(fixture: KeyStoreFixture, datadir: string): Promise<void> {
  await mkdir(datadir, { recursive: true, mode: 0o700 });
  await promisify(execFile)('cp', ['-al', fixture.dir, join(datadir, 'keystore')]);
}

/** Copies the extra files into a key directory, as an operator copying files in by hand. */
export async function copyExtraFiles(fixture: KeyStoreFixture, keyDir: string): Promise<void> {
  await promisify(execFile)('sh', ['-c', 'cp -p "$0"/* "$1"/', fixture.extraDir, keyDir]);
}
