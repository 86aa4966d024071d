/**
 * A real npm registry on loopback for the pack check: Verdaccio in a child process, its storage in a
 * temp directory, on a free port. The workspace's packages (`@chain/*`, `chain-node`) live there
 * only, never looked up upstream: a name the registry does not hold is a 404, as it would be for a
 * user, not a package of the same name from the public registry (`chain-node` there is another
 * project's). Every other package is proxied from the upstream registry, as a company registry does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { cleanEnv, npm } from './npm-process';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** Publishes a tarball (`npm publish <file>`) as the registry's one user. */
  publish(tarball: string): Promise<void>;
  /** The `.npmrc` lines that give a project this registry for `@chain/*` only (scoped). */
  scopedNpmrc(): string;
  /** The `.npmrc` line that makes this registry a project's one registry. */
  npmrc(): string;
  close(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;

function verdaccioBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('verdaccio/package.json');
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return join(dirname(manifestPath), typeof bin === 'string' ? bin : bin.verdaccio!);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The configuration: local-only names first (Verdaccio takes the first pattern that matches). */
function configYaml(dir: string, upstream: string): string {
  return [
    `storage: ${JSON.stringify(join(dir, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
    '    max_users: 1',
    'uplinks:',
    '  upstream:',
    `    url: ${JSON.stringify(upstream)}`,
    '    timeout: 60s',
    'packages:',
    "  '@chain/*':",
    '    access: $all',
    '    publish: $authenticated',
    "  'chain-node':",
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    '    proxy: upstream',
    'max_body_size: 100mb',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
}

async function waitForPing(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`verdaccio exited (${child.exitCode}):\n${output()}`);
    }
    const ok = await fetch(`${url}-/ping`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `verdaccio did not answer at ${url} within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`,
  );
}

/** Adds the registry's one user (the registry's own `npm adduser` endpoint) and returns its token. */
async function addUser(url: string): Promise<string> {
  const response = await fetch(`${url}-/user/org.couchdb.user:pack-check`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'pack-check', password: 'pack-check-password', type: 'user' }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`verdaccio refused the user: HTTP ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

/** Starts Verdaccio in `dir` (created), proxying `upstream` for everything but the workspace's names. */
export async function startLocalRegistry(dir: string, upstream: string): Promise<LocalRegistry> {
  await mkdir(dir, { recursive: true });
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, configYaml(dir, upstream));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(
    process.execPath,
    [verdaccioBin(), '--config', configFile, '--listen', `127.0.0.1:${port}`],
    { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function close(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  }

  try {
    await waitForPing(url, child, () => output);
    const token = await addUser(url);
    const host = `//127.0.0.1:${port}/`;
    const publisher = join(dir, 'publisher');
    await mkdir(publisher, { recursive: true });
    await writeFile(join(publisher, '.npmrc'), `registry=${url}\n${host}:_authToken=${token}\n`);
    return {
      url,
      async publish(tarball) {
        await npm(['publish', tarball, '--ignore-scripts', '--loglevel=error'], publisher);
      },
      scopedNpmrc: () => `@chain:registry=${url}\n`,
      npmrc: () => `registry=${url}\n`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
