/**
 * The packages as users get them. Every publishable package is packed (`npm pack`) and published
 * to a real registry on loopback (Verdaccio, started here with a temp storage). Then, outside the
 * workspace:
 * - a fresh project installs `@chain/rpc-client` and `@chain/crypto` from that registry alone
 *   (third-party packages proxied through it), without the native secp256k1; ESM `import`,
 *   CommonJS `require` and TypeScript compiled both ways load them and call a real node; the SDK
 *   examples of the READMEs compile under `tsc --strict` and run against that node; a browser
 *   bundle of the SDK builds with esbuild, and in Chromium calls the node (or, from an origin
 *   the node does not allow, says `--rpc-cors`);
 * - a second project installs `chain-node` and every other package from it (`@chain:registry`
 *   scoped, the rest from the usual registry): that is the node the tests call, and each package's
 *   README example runs there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, startLocalRegistry } from './local-registry';
import { cleanEnv, eachLimited, npm, run } from './npm-process';
import { type DevNode, fencedBlocks, fillPlaceholders, sdkExamples } from './readme-examples';

const WORKSPACE = join(import.meta.dirname, '..', '..', '..');

/** Every publishable package (nx release's group, nx.json). */
const PACKAGES = {
  '@chain/spec': join(WORKSPACE, 'packages', 'spec'),
  '@chain/crypto': join(WORKSPACE, 'packages', 'crypto'),
  '@chain/ophash': join(WORKSPACE, 'packages', 'ophash'),
  '@chain/keystore': join(WORKSPACE, 'packages', 'keystore'),
  '@chain/ledger': join(WORKSPACE, 'packages', 'ledger'),
  '@chain/tokens': join(WORKSPACE, 'packages', 'tokens'),
  '@chain/tiers': join(WORKSPACE, 'packages', 'tiers'),
  '@chain/offline': join(WORKSPACE, 'packages', 'offline'),
  '@chain/p2p-libp2p': join(WORKSPACE, 'packages', 'p2p-libp2p'),
  '@chain/rpc-jayson': join(WORKSPACE, 'packages', 'rpc-jayson'),
  '@chain/rpc-client': join(WORKSPACE, 'apps', 'rpc-client'),
  'chain-node': join(WORKSPACE, 'apps', 'node'),
} as const;
type PackageName = keyof typeof PACKAGES;
const NAMES = Object.keys(PACKAGES) as PackageName[];
/** The libraries: ESM and CommonJS. chain-node is a command (ESM only). */
const LIBRARIES = NAMES.filter((name) => name !== 'chain-node');

/**
 * Dependencies whose `engines` ask for more than they use, with what was checked. p-retry 8
 * (libp2p's reconnect queue) says Node >= 22 but uses nothing after Node 17.3 (Object.hasOwn,
 * AbortSignal.throwIfAborted, performance.now); every test of this repository runs on Node 20.
 */
const OVERSTATED_ENGINES: Record<string, string> = { 'p-retry@8.0.1': '>=22' };

interface PackReport {
  name: string;
  version: string;
  filename: string;
  files: Array<{ path: string }>;
}

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports?: Record<string, string | Record<string, Record<string, string>>>;
}

async function readManifest(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
}

async function ensureBuilt(name: PackageName): Promise<void> {
  // Under nx, ^build has run (chain-node, a devDependency, depends on every other package); a
  // direct vitest run builds here.
  const dist = join(PACKAGES[name], 'dist');
  const built = existsSync(join(dist, 'index.js'));
  const library = name !== 'chain-node';
  if (built && (!library || existsSync(join(dist, 'index.cjs')))) return;
  await run('npx', ['nx', 'run', `${name}:build`, '--output-style=static'], {
    cwd: WORKSPACE,
    env: cleanEnv({ NX_DAEMON: 'false' }),
  });
}

let scratch: string;
let registry: LocalRegistry;
const packs = {} as Record<PackageName, PackReport>;
/** The fresh project: @chain/rpc-client and @chain/crypto from the local registry alone. */
const sdkApp = () => join(scratch, 'sdk-app');
/** chain-node and every package, @chain/* from the local registry. */
const nodeApp = () => join(scratch, 'node-app');

async function upstreamRegistry(): Promise<string> {
  return (await npm(['config', 'get', 'registry'], scratch)).trim();
}

async function writeProject(dir: string, npmrc: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'pack-check-app', private: true, type: 'module' }),
  );
  await writeFile(join(dir, '.npmrc'), npmrc);
}

async function install(dir: string, specs: string[]): Promise<void> {
  await npm(
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
    dir,
  );
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pack-check-'));
  for (const name of NAMES) await ensureBuilt(name);
  const packsDir = join(scratch, 'packs');
  await mkdir(packsDir);
  const [output, upstream] = await Promise.all([
    npm(
      [
        'pack',
        '--json',
        '--ignore-scripts',
        '--pack-destination',
        packsDir,
        ...NAMES.flatMap((name) => ['--workspace', PACKAGES[name]]),
      ],
      WORKSPACE,
    ),
    upstreamRegistry(),
  ]);
  for (const report of JSON.parse(output) as PackReport[]) {
    packs[report.name as PackageName] = report;
  }
  registry = await startLocalRegistry(join(scratch, 'registry'), upstream);
  await eachLimited(NAMES, 3, (name) => registry.publish(join(packsDir, packs[name].filename)));

  const nodeTarball = await tarballUrl('chain-node');
  // `resolved` kept in the lockfile (a user config may omit it): it says where each came from.
  await writeProject(sdkApp(), `${registry.npmrc()}omit-lockfile-registry-resolved=false\n`);
  await writeProject(nodeApp(), registry.scopedNpmrc());
  await Promise.all([
    install(sdkApp(), [
      `@chain/rpc-client@${packs['@chain/rpc-client'].version}`,
      `@chain/crypto@${packs['@chain/crypto'].version}`,
    ]),
    install(nodeApp(), [nodeTarball, ...LIBRARIES.map((name) => `${name}@${packs[name].version}`)]),
  ]);
});

afterAll(async () => {
  await registry?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** The tarball URL of a package's published version, as the registry lists it. */
async function tarballUrl(name: PackageName): Promise<string> {
  const document = (await (await fetch(`${registry.url}${name.replace('/', '%2f')}`)).json()) as {
    versions: Record<string, { dist: { tarball: string } }>;
  };
  return document.versions[packs[name].version]!.dist.tarball;
}

/** The files a subpath of `exports` names, for import and require, code and types. */
function exportedFiles(manifest: Manifest): string[] {
  return Object.values(manifest.exports ?? {}).flatMap((target) =>
    typeof target === 'string'
      ? [target]
      : Object.values(target).flatMap((conditions) =>
          Object.entries(conditions)
            .filter(([condition]) => condition !== '@chain/source')
            .map(([, file]) => file),
        ),
  );
}

describe('tarballs', () => {
  it.each(NAMES)('%s ships its build, README and no sources', (name) => {
    const files = packs[name].files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(
      files.filter(
        (file) =>
          !/^(dist\/|package\.json$|README\.md$|LICENSE)/.test(file) &&
          !(name === 'chain-node' && file === 'bin/chain-node.js') &&
          // Builds classic-level's LevelDB without seek compactions (the Docker image runs it).
          !(name === '@chain/ledger' && file === 'scripts/build-leveldb.mjs'),
      ),
    ).toEqual([]);
    expect(files.filter((file) => /\.test\.|\.tsbuildinfo$/.test(file))).toEqual([]);
  });

  it.each(LIBRARIES)(
    '%s exports every subpath to import and require, each with its types, all shipped',
    async (name) => {
      const manifest = await readManifest(PACKAGES[name]);
      const files = new Set(packs[name].files.map((file) => file.path));
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        if (subpath === './package.json') continue;
        expect(target, subpath).toMatchObject({
          import: {
            types: expect.stringMatching(/\.d\.ts$/),
            default: expect.stringMatching(/\.js$/),
          },
          require: {
            types: expect.stringMatching(/\.d\.cts$/),
            default: expect.stringMatching(/\.cjs$/),
          },
        });
      }
      const missing = exportedFiles(manifest)
        .map((file) => file.replace(/^\.\//, ''))
        .filter((file) => !files.has(file));
      expect(missing).toEqual([]);
    },
  );

  it('@chain/rpc-client has no runtime dependency and its build imports nothing', async () => {
    const installed = join(sdkApp(), 'node_modules', '@chain', 'rpc-client');
    const manifest = await readManifest(installed);
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    expect(Object.keys(manifest.peerDependencies ?? {})).toEqual([]);

    const dist = join(installed, 'dist');
    const checked: string[] = [];
    for (const file of await readdir(dist)) {
      if (!/\.(c?js|d\.c?ts)$/.test(file)) continue;
      checked.push(file);
      const text = await readFile(join(dist, file), 'utf8');
      // Self-contained: the catalogue is bundled (code and types), and nothing of Node is used, so
      // browsers can load it as is.
      // Not after a dot: `Uint8Array.from("…")` in the bundled crypto is a call, not an import.
      const imports = [
        ...text.matchAll(/(?<![.\w])(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g),
      ].map((match) => match[1]);
      expect(imports, file).toEqual([]);
      expect(text, file).not.toMatch(/\bnode:[a-z]|\bprocess\.[a-z]|\brequire\(/);
    }
    expect(checked.sort()).toEqual(['index.cjs', 'index.d.cts', 'index.d.ts', 'index.js']);
  });

  it('secp256k1 is an optional peer of @chain/crypto and @chain/ledger, a dependency of chain-node', async () => {
    for (const name of ['@chain/crypto', '@chain/ledger'] as const) {
      const manifest = await readManifest(PACKAGES[name]);
      expect(manifest.dependencies?.secp256k1, name).toBeUndefined();
      expect(manifest.peerDependencies?.secp256k1, name).toBeDefined();
      expect(manifest.peerDependenciesMeta?.secp256k1, name).toEqual({ optional: true });
    }
    const node = await readManifest(PACKAGES['chain-node']);
    expect(node.dependencies?.secp256k1).toBeDefined();
  });
});

describe('chain-node tarball', () => {
  const NODE_APP = join(WORKSPACE, 'apps', 'node');

  it('ships the explorer bundle, a self-contained script, and needs no SDK at run time', async () => {
    const files = packs['chain-node'].files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['dist/cli.js', 'dist/explorer/app.js', 'dist/explorer/app.css']),
    );
    expect(files.filter((file) => file.startsWith('src/'))).toEqual([]);

    // The SDK and the chart library are bundled into the script at build time: devDependencies only.
    const manifest = await readManifest(NODE_APP);
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain('@chain/rpc-client');
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain('uplot');
    const script = await readFile(join(NODE_APP, 'dist', 'explorer', 'app.js'), 'utf8');
    const imports = [
      ...script.matchAll(/(?<![.\w])(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g),
    ].map((match) => match[1]);
    expect(imports).toEqual([]);
    expect(script).not.toMatch(/\bnode:[a-z]|\bprocess\.[a-z]|\brequire\(/);
  });
});

/** Where `name` resolves from `dir` the way Node looks it up (node_modules upwards). */
function packageDir(from: string, name: string, root: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

/** Every installed package `dir` depends on at run time, transitively (optional peers present included). */
async function runtimeClosure(dir: string, root: string): Promise<Map<string, Manifest>> {
  const found = new Map<string, Manifest>();
  const queue = [dir];
  while (queue.length > 0) {
    const current = queue.pop()!;
    const manifest = await readManifest(current);
    const names = Object.keys({
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    });
    for (const name of names) {
      const resolved = packageDir(current, name, root);
      if (resolved === undefined || found.has(resolved)) continue;
      found.set(resolved, await readManifest(resolved));
      queue.push(resolved);
    }
  }
  return found;
}

describe('from the local registry', () => {
  it('holds every package, and no name of ours it was not given (none is looked up upstream)', async () => {
    for (const name of NAMES) {
      const response = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
      expect(response.status, name).toBe(200);
      const document = (await response.json()) as { versions: Record<string, unknown> };
      expect(Object.keys(document.versions), name).toEqual([packs[name].version]);
    }
    const unknown = await fetch(`${registry.url}@chain%2fnot-published`);
    expect(unknown.status).toBe(404);
  });

  it('a fresh project gets @chain/rpc-client, @chain/crypto and @chain/spec from it, and no native secp256k1', async () => {
    const lock = JSON.parse(await readFile(join(sdkApp(), 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; resolved?: string }>;
    };
    const installed = Object.keys(lock.packages)
      .filter((path) => path !== '')
      .map((path) => path.replace(/^.*node_modules\//, ''))
      .sort();
    expect(installed).toEqual([
      '@chain/crypto',
      '@chain/rpc-client',
      '@chain/spec',
      '@noble/hashes',
      '@noble/secp256k1',
      'hash-wasm',
    ]);
    for (const name of ['@chain/crypto', '@chain/rpc-client', '@chain/spec']) {
      expect(lock.packages[`node_modules/${name}`]?.resolved, name).toMatch(
        new RegExp(`^${registry.url}`),
      );
    }
  });

  it('chain-node installed from it has libsecp256k1, which loads', async () => {
    expect(existsSync(join(nodeApp(), 'node_modules', 'secp256k1', 'package.json'))).toBe(true);
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { fastestSecp256k1 } from '@chain/crypto/native'; console.log(fastestSecp256k1().name)",
      ],
      { cwd: nodeApp(), env: cleanEnv() },
    );
    expect(stdout.trim()).toBe('libsecp256k1');
  });

  it("each package's engines fit what its installed dependencies declare", async () => {
    const root = nodeApp();
    const overstated: string[] = [];
    const conflicts: string[] = [];
    for (const name of NAMES) {
      const dir = join(root, 'node_modules', name);
      const ours = (await readManifest(dir)).engines?.node;
      expect(ours, `${name} declares engines.node`).toBeDefined();
      for (const dependency of (await runtimeClosure(dir, root)).values()) {
        const theirs = dependency.engines?.node;
        if (theirs === undefined || semver.subset(ours!, theirs)) continue;
        const id = `${dependency.name}@${dependency.version}`;
        if (OVERSTATED_ENGINES[id] === theirs) overstated.push(id);
        else conflicts.push(`${name} says ${ours}, ${id} says ${theirs}`);
      }
    }
    expect(conflicts).toEqual([]);
    // The exception is still needed (remove it when libp2p's p-retry says what it needs).
    expect(new Set(overstated)).toEqual(new Set(Object.keys(OVERSTATED_ENGINES)));
  });
});

// ---- the node the projects call ----------------------------------------------------------------

let nodeProcess: ChildProcess | undefined;
let devNode: DevNode;
/** Pages for the browser test: one of an origin the node allows (`--rpc-cors`), one of another. */
let allowedPage: PageServer;
let otherPage: PageServer;
let pageScript = '';

interface PageServer {
  origin: string;
  close(): Promise<void>;
}

async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/sdk.js') {
      response.setHeader('content-type', 'text/javascript');
      response.end(pageScript);
      return;
    }
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>sdk</title><script src="/sdk.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function rpc(method: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(devNode.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

beforeAll(async () => {
  [allowedPage, otherPage] = await Promise.all([startPageServer(), startPageServer()]);
  const bin = join(nodeApp(), 'node_modules', '.bin', 'chain-node');
  // A block per submission: each example sees the operations of the one before it mined.
  const child = spawn(
    bin,
    [
      'start',
      '--datadir',
      join(scratch, 'node'),
      '--rpc-port',
      '0',
      '--p2p-port',
      '0',
      '--block-time',
      '0',
      '--rpc-cors',
      allowedPage.origin,
    ],
    { cwd: nodeApp(), env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  nodeProcess = child;
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    out += chunk;
  });
  const { url, wallet } = await new Promise<{ url: string; wallet: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const rpcUrl = /JSON-RPC\s+(http:\/\/\S+)/.exec(out)?.[1];
      const devWallet = /wallet\s+(CH[0-9a-f]+)/.exec(out)?.[1];
      if (rpcUrl && devWallet) resolve({ url: rpcUrl, wallet: devWallet });
    });
    child.on('exit', (code) => reject(new Error(`chain-node exited (${code}):\n${out}`)));
  });
  devNode = { url, wallet, privateKey: '' };
  const dumped = (await rpc('dumpPrivateKey', { wallet, passphrase: 'dev' })) as { priv: string };
  devNode.privateKey = dumped.priv;
  // The installed node found libsecp256k1 (it warns at start otherwise).
  expect(out).not.toMatch(/libsecp256k1 .* did not load/);
});

afterAll(async () => {
  if (nodeProcess && nodeProcess.exitCode === null) {
    const exited = new Promise((done) => nodeProcess!.once('exit', done));
    nodeProcess.kill('SIGTERM');
    await exited;
  }
  await Promise.all([allowedPage?.close(), otherPage?.close()]);
});

/** Runs a script file in the SDK project; resolves with what it printed, parsed as JSON. */
async function runScript(name: string, code: string, args: string[] = []): Promise<unknown> {
  const file = join(sdkApp(), name);
  await writeFile(file, code);
  const { stdout } = await run(process.execPath, [...args, file], {
    cwd: sdkApp(),
    env: cleanEnv(),
    timeout: 120_000,
  });
  return JSON.parse(stdout);
}

/**
 * One program, as ESM or CommonJS: the SDK reads the chain, @chain/crypto signs a message with the
 * dev wallet's key that the node then verifies, and verifies one the node signed.
 */
function callsProgram(load: string): string {
  return `${load}
async function main() {
  const node = createClient({ url: ${JSON.stringify(devNode?.url)} });
  const privateKey = crypto.decodePrivateKey(${JSON.stringify(devNode?.privateKey)});
  const wallet = crypto.addressFromPublicKey('CH', crypto.getPublicKey(privateKey));
  const signed = crypto.signMessage('signed by @chain/crypto', privateKey, 'CH');
  const byNode = await node.wallet.signMessage({ wallet, passphrase: 'dev', message: 'signed by the node' });
  return {
    height: await node.block.getBlockCount(),
    coins: parseCoins('1.5').toString(),
    wallet,
    nodeVerifies: await node.wallet.verifyMessage({ data: signed }),
    cryptoVerifies: crypto.verifyMessage(byNode),
    tampered: crypto.verifyMessage({ ...byNode, msg: 'signed by someone else' }),
  };
}
main().then((result) => console.log(JSON.stringify(result)), (error) => { console.error(error); process.exit(1); });
`;
}

describe('imported from the fresh project', () => {
  it('@chain/spec (installed with @chain/crypto) gives the catalogue and the error codes', async () => {
    const result = await runScript(
      'spec.mjs',
      `import { catalogue, ERROR_CODES, isMethodName, PROTOCOL_ERRORS } from '@chain/spec';
import { ErrorCode } from '@chain/crypto';
console.log(JSON.stringify({
  getBlockCount: catalogue.getBlockCount.group,
  known: isMethodName('sendTo'),
  invalidParams: ERROR_CODES.INVALID_PARAMS,
  busy: PROTOCOL_ERRORS.BUSY.code,
  cryptoShares: ErrorCode.WRONG_PASSPHRASE === ERROR_CODES.WRONG_PASSPHRASE,
}));
`,
    );
    expect(result).toEqual({
      getBlockCount: 'block',
      known: true,
      invalidParams: -32602,
      busy: -32005,
      cryptoShares: true,
    });
  });

  it('@chain/crypto derives the address of private key 1 and signs and verifies a message', async () => {
    const result = (await runScript(
      'crypto.mjs',
      `import * as crypto from '@chain/crypto';
const privateKey = new Uint8Array(32); privateKey[31] = 1;
const address = crypto.addressFromPublicKey('CH', crypto.getPublicKey(privateKey));
const signed = crypto.signMessage('hello from a fresh project', privateKey, 'CH');
console.log(JSON.stringify({
  address,
  valid: crypto.isValidAddress(address, 'CH'),
  signedBy: signed.wallet,
  verifies: crypto.verifyMessage(signed),
  tamperedVerifies: crypto.verifyMessage({ ...signed, msg: 'hello from elsewhere' }),
}));
`,
    )) as Record<string, unknown>;

    // Private key 1's public key is the generator G; HASH160 of compressed G is the well-known
    // 751e76e8199196d454941c45d1b3a323f1433bd6 (Bitcoin address 1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH).
    // Checksum (DESIGN section 2): the first 3 bytes of SHA256(prefix || hash20), here by node:crypto.
    const hash20 = Buffer.from('751e76e8199196d454941c45d1b3a323f1433bd6', 'hex');
    const checksum = createHash('sha256')
      .update(Buffer.concat([Buffer.from('CH', 'ascii'), hash20]))
      .digest()
      .subarray(0, 3)
      .toString('hex');
    expect(result).toEqual({
      address: `CH${hash20.toString('hex')}${checksum}`,
      valid: true,
      signedBy: result.address,
      verifies: true,
      tamperedVerifies: false,
    });
  });

  it('@chain/rpc-client signs offline: the worked transfer of docs/wire-format.md', async () => {
    const result = await runScript(
      'offline.mjs',
      `import { encodeRaw, signOperation } from '@chain/rpc-client';
const signed = signOperation(
  { type: 'transfer', receiver: 'CH751e76e8199196d454941c45d1b3a323f1433bd62907c4', amount: 1500000000000000000n, payload: '6869' },
  { genesis: '2b45a8350a5469743e872bdfcf0935f9cf08d6e919f1f68ceff4ce7245ecf1eb', prefix: 'CH', account: 0, nOperation: 1, fee: 100000000000000n },
  'ca0220002c9e10735a2338cef8c19081cf88b90f58b2b398a7d01cbaf00e83c22964892c',
);
console.log(JSON.stringify({ raw: encodeRaw([signed]), ophash: signed.ophash }));
`,
    );
    const doc = await readFile(join(WORKSPACE, 'docs', 'wire-format.md'), 'utf8');
    const documented = (label: string) =>
      new RegExp(`^${label}\\s+([0-9a-f]+)$`, 'm').exec(doc)?.[1];
    expect(result).toEqual({ raw: documented('raw'), ophash: documented('ophash') });
  });
});

describe('ESM and CommonJS, against the node', () => {
  const expected = () => ({
    height: expect.any(Number),
    coins: '1500000000000000000',
    wallet: devNode.wallet,
    nodeVerifies: true,
    cryptoVerifies: true,
    tampered: false,
  });

  it('import loads both and they call the node', async () => {
    const result = await runScript(
      'calls.mjs',
      callsProgram(
        "import { createClient, parseCoins } from '@chain/rpc-client';\nimport * as crypto from '@chain/crypto';",
      ),
    );
    expect(result).toEqual(expected());
  });

  it('require loads both and they call the node', async () => {
    const result = await runScript(
      'calls.cjs',
      callsProgram(
        "const { createClient, parseCoins } = require('@chain/rpc-client');\nconst crypto = require('@chain/crypto');",
      ),
    );
    expect(result).toEqual(expected());
  });

  it('TypeScript compiled to ESM and to CommonJS type-checks against each types and runs', async () => {
    const source = (load: string) => `${load}
const node = createClient({ url: ${JSON.stringify(devNode.url)} });
async function main(): Promise<void> {
  const info: WalletInfo = await node.wallet.getWalletInfo({ wallet: ${JSON.stringify(devNode.wallet)} });
  const key: Uint8Array = decodePrivateKey(${JSON.stringify(devNode.privateKey)});
  const wallet: string = addressFromPublicKey('CH', getPublicKey(key));
  const signed: SignedOperation = signOperation(
    { type: 'nodeCancel', code: '0123456789abcdef' },
    { genesis: '00'.repeat(32), account: 1, nOperation: 2, fee: 0n },
    '11'.repeat(32),
  );
  // @ts-expect-error getWalletInfo requires { wallet }
  void node.wallet.getWalletInfo({}).catch(() => undefined);
  console.log(JSON.stringify({ same: wallet === info.wallet, balance: BigInt(info.balance) > parseCoins('0'), ophash: /^[0-9a-f]{64}$/.test(signed.ophash) }));
}
void main();
`;
    const names =
      '{ createClient, parseCoins, signOperation, type SignedOperation, type WalletInfo }';
    await writeFile(
      join(sdkApp(), 'consumer.mts'),
      source(
        `import ${names} from '@chain/rpc-client';\nimport { addressFromPublicKey, decodePrivateKey, getPublicKey } from '@chain/crypto';`,
      ),
    );
    // A .cts file compiles to CommonJS: its imports become require() and resolve the .d.cts types.
    await writeFile(
      join(sdkApp(), 'consumer.cts'),
      source(
        `import ${names} from '@chain/rpc-client';\nimport { addressFromPublicKey, decodePrivateKey, getPublicKey } from '@chain/crypto';`,
      ),
    );
    await compile(['consumer.mts', 'consumer.cts'], 'consumer-out');

    const compiledCjs = await readFile(join(sdkApp(), 'consumer-out', 'consumer.cjs'), 'utf8');
    expect(compiledCjs).toContain('require("@chain/rpc-client")');
    for (const file of ['consumer.mjs', 'consumer.cjs']) {
      const { stdout } = await run(process.execPath, [join('consumer-out', file)], {
        cwd: sdkApp(),
        env: cleanEnv(),
      });
      expect(JSON.parse(stdout), file).toEqual({ same: true, balance: true, ophash: true });
    }
  });

  it('a TypeScript project of the classic CommonJS kind (module commonjs, node10 resolution) compiles and runs', async () => {
    // `"module": "commonjs"` resolves types the pre-exports way: `types`, and `typesVersions` for
    // subpaths; at run time Node takes `require` of `exports`.
    const project = join(sdkApp(), 'classic-cjs');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    await writeFile(
      join(project, 'index.ts'),
      `import { createClient, parseCoins } from '@chain/rpc-client';
import { addressFromPublicKey, decodePrivateKey, getPublicKey } from '@chain/crypto';
import { fastestSecp256k1 } from '@chain/crypto/native';
async function main(): Promise<void> {
  const node = createClient({ url: ${JSON.stringify(devNode.url)} });
  const wallet = addressFromPublicKey('CH', getPublicKey(decodePrivateKey(${JSON.stringify(devNode.privateKey)})));
  const { balance } = await node.wallet.getWalletInfo({ wallet });
  console.log(JSON.stringify({ funded: BigInt(balance) > parseCoins('1'), backend: fastestSecp256k1().name }));
}
void main();
`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
        },
        files: ['index.ts'],
      }),
    );
    const tsc = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');
    const outcome = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
    }).then(
      () => 'compiled',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(outcome).toBe('compiled');
    const { stdout } = await run(process.execPath, [join('out', 'index.js')], {
      cwd: project,
      env: cleanEnv(),
    });
    expect(JSON.parse(stdout)).toEqual({ funded: true, backend: 'noble' });
  });

  it('@chain/crypto/native without secp256k1: the pure path, and a clear error from the native one', async () => {
    const result = await runScript(
      'native.cjs',
      `const native = require('@chain/crypto/native');
let error = '';
try { native.nativeSecp256k1.sign(new Uint8Array(32), new Uint8Array(32).fill(1)); } catch (e) { error = e.message; }
console.log(JSON.stringify({ available: native.isNativeSecp256k1Available(), fastest: native.fastestSecp256k1().name, error }));
`,
    );
    expect(result).toEqual({
      available: false,
      fastest: 'noble',
      error: expect.stringContaining('optional peer dependency of @chain/crypto'),
    });
  });
});

/** tsc --strict over files of the SDK project, emitting into `outDir` (lib DOM, no @types/node). */
async function compile(files: string[], outDir: string): Promise<void> {
  const tsconfig = `tsconfig.${outDir}.json`;
  await writeFile(
    join(sdkApp(), tsconfig),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
        strict: true,
        skipLibCheck: false,
        outDir,
      },
      files,
    }),
  );
  const tsc = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');
  const outcome = await run(process.execPath, [tsc, '-p', tsconfig], { cwd: sdkApp() }).then(
    () => 'compiled',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(outcome).toBe('compiled');
}

describe('README examples', () => {
  it("the SDK's examples (README.md, apps/rpc-client/README.md) compile under tsc --strict and run", async () => {
    const examples = [
      ...(await sdkExamples(join(WORKSPACE, 'README.md'))),
      ...(await sdkExamples(join(PACKAGES['@chain/rpc-client'], 'README.md'))),
    ];
    expect(examples.length).toBeGreaterThanOrEqual(6);
    const files: string[] = [];
    for (const [index, example] of examples.entries()) {
      const code = fillPlaceholders(example, devNode);
      expect(code, `example ${index}`).not.toMatch(/'(CH|ca0220)…'/);
      const file = `readme-${index}.mts`;
      await writeFile(join(sdkApp(), file), `${code}\nexport {};\n`);
      files.push(file);
    }
    await compile(files, 'readme-out');

    const outputs: string[] = [];
    for (const file of files) {
      // Node 20 has a global WebSocket behind this flag (the push example uses the global one).
      const { stdout } = await run(
        process.execPath,
        ['--experimental-websocket', join('readme-out', file.replace(/\.mts$/, '.mjs'))],
        { cwd: sdkApp(), env: cleanEnv(), timeout: 120_000 },
      ).catch((error: { stderr?: string }) => {
        throw new Error(
          `${file} failed:\n${fillPlaceholders(examples[files.indexOf(file)]!, devNode)}\n${error.stderr}`,
        );
      });
      outputs.push(stdout);
    }
    // README.md: the new wallet's amount equals parseCoins('1.5'); the offline transfer's ophash is
    // the one excuteRaw answers.
    const printed = outputs.join('----\n');
    expect(outputs[0], printed).toMatch(/^[0-9a-f]+ true$/m);
    expect(outputs.at(-1), printed).toBe('true\n');
    expect(printed).toContain('WRONG_PASSPHRASE');
  });

  it.each(LIBRARIES)('%s: its README example (```js) runs', async (name) => {
    const [code] = await fencedBlocks(join(PACKAGES[name], 'README.md'), 'js');
    expect(code, `${name}'s README has no \`\`\`js example`).toBeDefined();
    const file = join(nodeApp(), `readme-${name.replace(/\W/g, '-')}.mjs`);
    await writeFile(file, code!);
    const { stdout } = await run(process.execPath, [file], {
      cwd: nodeApp(),
      env: cleanEnv({ CHAIN_RPC_URL: devNode.url }),
      timeout: 120_000,
    });
    expect(stdout.trim()).not.toBe('');
  });

  it('chain-node: its README commands run', async () => {
    const [script] = await fencedBlocks(join(PACKAGES['chain-node'], 'README.md'), 'sh');
    const commands = script!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(
        (line) => line.startsWith('npx chain-node ') && !line.startsWith('npx chain-node start'),
      );
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const bin = join(nodeApp(), 'node_modules', '.bin', 'chain-node');
    const outputs: string[] = [];
    for (const command of commands) {
      const args = command.slice('npx chain-node '.length).split(/\s+/);
      outputs.push((await run(bin, args, { cwd: nodeApp(), env: cleanEnv() })).stdout);
    }
    expect(outputs.join('')).toMatch(/wrote genesis\.json: network demo/);
  });
});

describe('in a browser', () => {
  const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(CHROMIUM)) {
    console.warn(
      `\n!!! SKIPPING the Chromium run of the SDK bundle: no Chromium at ${CHROMIUM}.\n` +
        '!!! Install it (apt-get install -y chromium) or set CHROMIUM_PATH to run it.\n',
    );
  }

  it('a page bundle of @chain/rpc-client and @chain/crypto builds with no Node built-in', async () => {
    const entry = join(sdkApp(), 'page.ts');
    await writeFile(
      entry,
      `import { createClient, TransportError } from '@chain/rpc-client';
import { addressFromPublicKey, getPublicKey } from '@chain/crypto';
const url = new URLSearchParams(location.search).get('node')!;
const key = new Uint8Array(32); key[31] = 1;
const client = createClient({ url, retries: 0, reconnect: false });
const report = (result: unknown) => { document.title = JSON.stringify(result); };
const messageOf = (error: unknown) => error instanceof TransportError ? error.message : String(error);
async function main(): Promise<void> {
  try {
    const height = await client.block.getBlockCount();
    let pushed = -1;
    for await (const block of client.subscribe('newBlocks', { fromBlock: 0 })) {
      pushed = block.block;
      break;
    }
    report({ height, pushed, address: addressFromPublicKey('CH', getPublicKey(key)) });
  } catch (error) {
    const push = await client.subscribe('newBlocks').ready.then(() => 'subscribed', messageOf);
    report({ error: messageOf(error), push });
  }
}
void main();
`,
    );
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: sdkApp(),
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    // The ESM builds, nothing of Node (esbuild fails on an unresolvable built-in for a browser).
    expect(inputs).toContain('node_modules/@chain/rpc-client/dist/index.js');
    expect(
      inputs.filter((input) => /^node:|\.cjs$|secp256k1\/(bindings|elliptic)/.test(input)),
    ).toEqual([]);
    pageScript = result.outputFiles[0]!.text;
    expect(pageScript).not.toMatch(/\brequire\(|\bprocess\.[a-z]/);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'in Chromium it calls the node and subscribes from an origin it allows, and names --rpc-cors from another',
    async () => {
      expect(pageScript).not.toBe('');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
        ],
      });
      try {
        const page = await browser.newPage();
        const titleFrom = async (origin: string): Promise<Record<string, unknown>> => {
          await page.goto(`${origin}/?node=${encodeURIComponent(devNode.url)}`);
          await page.waitForFunction(() => document.title.startsWith('{'), undefined, {
            timeout: 60_000,
          });
          return JSON.parse(await page.title()) as Record<string, unknown>;
        };

        expect(await titleFrom(allowedPage.origin)).toEqual({
          height: expect.any(Number),
          pushed: 0,
          address: 'CH751e76e8199196d454941c45d1b3a323f1433bd62907c4',
        });
        // The same page from an origin the node was not given: its fetch and its push socket.
        const refused = await titleFrom(otherPage.origin);
        const nodeOrigin = new URL(devNode.url).origin;
        for (const message of [refused.error, refused.push]) {
          expect(message).toContain(`not running at ${nodeOrigin}`);
          expect(message).toContain(`--rpc-cors ${otherPage.origin}`);
        }
      } finally {
        await browser.close();
      }
    },
  );
});
