/**
 * The publishable packages as a user gets them: `npm pack` each one, install the tarballs into a fresh
 * project outside the workspace (third-party dependencies from the registry, through the local
 * cache), then import them from plain ESM run by node and compile against their types.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
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

interface PackReport {
  filename: string;
  files: Array<{ path: string }>;
}

/** The environment of child npm/node processes, without the npm_* variables of the outer npm run. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'),
  );
}

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, {
    cwd,
    env: cleanEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function ensureBuilt(name: PackageName): Promise<void> {
  // Under nx, ^build has run (chain-node, a devDependency, depends on every other package); a
  // direct vitest run builds here.
  if (existsSync(join(PACKAGES[name], 'dist', 'index.js'))) return;
  await run('npx', ['nx', 'run', `${name}:build`, '--output-style=static'], {
    cwd: WORKSPACE,
    env: cleanEnv(),
  });
}

let scratch: string;
const packs = {} as Record<PackageName, PackReport>;

async function node(script: string): Promise<unknown> {
  const file = join(
    scratch,
    'app',
    `${createHash('sha256').update(script).digest('hex').slice(0, 8)}.mjs`,
  );
  await writeFile(file, script);
  const { stdout } = await run(process.execPath, [file], {
    cwd: join(scratch, 'app'),
    env: cleanEnv(),
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pack-check-'));
  const app = join(scratch, 'app');
  await mkdir(app);
  const dependencies: Record<string, string> = {};
  for (const name of Object.keys(PACKAGES) as PackageName[]) {
    await ensureBuilt(name);
    const output = await npm(
      ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch],
      PACKAGES[name],
    );
    const [report] = JSON.parse(output) as PackReport[];
    packs[name] = report;
    dependencies[name] = `file:${join(scratch, report.filename)}`;
  }
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'pack-check-app', private: true, type: 'module', dependencies }),
  );
  await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app);
});

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe('tarballs', () => {
  it.each(Object.keys(PACKAGES) as PackageName[])(
    '%s ships its build, README and no sources',
    (name) => {
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
    },
  );

  it('@chain/rpc-client has no runtime dependency and its build imports nothing', async () => {
    const installed = join(scratch, 'app', 'node_modules', '@chain', 'rpc-client');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    expect(Object.keys(manifest.peerDependencies ?? {})).toEqual([]);

    const dist = join(installed, 'dist');
    for (const file of await readdir(dist)) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
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
  });
});

describe('chain-node tarball', () => {
  const NODE_APP = join(WORKSPACE, 'apps', 'node');

  it('ships the explorer bundle, a self-contained script, and needs no SDK at run time', async () => {
    // Under nx, chain-node's build has run (a devDependency); a direct vitest run builds it here.
    if (!existsSync(join(NODE_APP, 'dist', 'explorer', 'app.js'))) {
      await run('npx', ['nx', 'run', 'chain-node:build', '--output-style=static'], {
        cwd: WORKSPACE,
        env: cleanEnv(),
      });
    }
    const output = await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], NODE_APP);
    const [report] = JSON.parse(output) as PackReport[];
    const files = report!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['dist/cli.js', 'dist/explorer/app.js', 'dist/explorer/app.css']),
    );
    expect(files.filter((file) => file.startsWith('src/'))).toEqual([]);

    // The SDK and the chart library are bundled into the script at build time: devDependencies only.
    const manifest = JSON.parse(await readFile(join(NODE_APP, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).not.toContain('@chain/rpc-client');
    expect(Object.keys(manifest.dependencies)).not.toContain('uplot');
    const script = await readFile(join(NODE_APP, 'dist', 'explorer', 'app.js'), 'utf8');
    const imports = [
      ...script.matchAll(/(?<![.\w])(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g),
    ].map((match) => match[1]);
    expect(imports).toEqual([]);
    expect(script).not.toMatch(/\bnode:[a-z]|\bprocess\.[a-z]|\brequire\(/);
  });
});

describe('imported from a fresh project', () => {
  it('@chain/spec has no runtime dependency and gives the catalogue and the error codes', async () => {
    const manifest = JSON.parse(
      await readFile(
        join(scratch, 'app', 'node_modules', '@chain', 'spec', 'package.json'),
        'utf8',
      ),
    );
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    const result = await node(`
      import { catalogue, ERROR_CODES, isMethodName, PROTOCOL_ERRORS } from '@chain/spec';
      import { ErrorCode } from '@chain/crypto';
      console.log(JSON.stringify({
        getBlockCount: catalogue.getBlockCount.group,
        known: isMethodName('sendTo'),
        invalidParams: ERROR_CODES.INVALID_PARAMS,
        busy: PROTOCOL_ERRORS.BUSY.code,
        cryptoShares: ErrorCode.WRONG_PASSPHRASE === ERROR_CODES.WRONG_PASSPHRASE,
      }));
    `);
    expect(result).toEqual({
      getBlockCount: 'block',
      known: true,
      invalidParams: -32602,
      busy: -32005,
      cryptoShares: true,
    });
  });

  it('@chain/crypto derives the address of private key 1 and signs and verifies a message', async () => {
    const result = (await node(`
      import * as crypto from '@chain/crypto';
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
    `)) as Record<string, unknown>;

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

  it('@chain/rpc-client parses coins and calls a node over fetch', async () => {
    const result = await node(`
      import { createServer } from 'node:http';
      import { createClient, parseCoins, formatCoins, RpcError } from '@chain/rpc-client';
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => { body += chunk; });
        req.on('end', () => {
          const { id, method } = JSON.parse(body);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(method === 'getBlockCount'
            ? { jsonrpc: '2.0', id: String(id), result: 12 }
            : { jsonrpc: '2.0', id: String(id), error: { code: -32601, message: 'Method not found' } }));
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const client = createClient({ url: 'http://127.0.0.1:' + server.address().port + '/' });
      const height = await client.block.getBlockCount();
      const error = await client.call('nodeStop').catch((e) => e);
      server.close();
      console.log(JSON.stringify({
        coins: parseCoins('1.5').toString(),
        formatted: formatCoins(1500000000000000000n),
        height,
        rpcError: error instanceof RpcError ? error.code : String(error),
        groups: Object.keys(client).filter((key) => typeof client[key] === 'object').sort(),
      }));
    `);

    expect(result).toEqual({
      coins: '1500000000000000000',
      formatted: '1.5',
      height: 12,
      rpcError: -32601,
      groups: ['block', 'network', 'operations', 'participation', 'stats', 'token', 'wallet'],
    });
  });

  it('@chain/rpc-client signs offline: the worked transfer of docs/wire-format.md', async () => {
    const result = await node(`
      import { encodeRaw, signOperation } from '@chain/rpc-client';
      const signed = signOperation(
        { type: 'transfer', receiver: 'CH751e76e8199196d454941c45d1b3a323f1433bd62907c4', amount: 1500000000000000000n, payload: '6869' },
        { genesis: '2b45a8350a5469743e872bdfcf0935f9cf08d6e919f1f68ceff4ce7245ecf1eb', prefix: 'CH', account: 0, nOperation: 1, fee: 100000000000000n },
        'ca0220002c9e10735a2338cef8c19081cf88b90f58b2b398a7d01cbaf00e83c22964892c',
      );
      console.log(JSON.stringify({ raw: encodeRaw([signed]), ophash: signed.ophash }));
    `);
    const doc = await readFile(join(WORKSPACE, 'docs', 'wire-format.md'), 'utf8');
    const documented = (label: string) =>
      new RegExp(`^${label}\\s+([0-9a-f]+)$`, 'm').exec(doc)?.[1];
    expect(result).toEqual({ raw: documented('raw'), ophash: documented('ophash') });
  });

  it('both compile against their published types alone', async () => {
    const app = join(scratch, 'app');
    await writeFile(
      join(app, 'consumer.ts'),
      `import { createClient, parseCoins, signOperation, type SignedOperation, type WalletInfo } from '@chain/rpc-client';
import { addressFromPublicKey, getPublicKey } from '@chain/crypto';
const client = createClient({ url: 'http://127.0.0.1:9713' });
export async function balance(wallet: string): Promise<bigint> {
  const info: WalletInfo = await client.wallet.getWalletInfo({ wallet });
  return BigInt(info.balance) + parseCoins('0');
}
export const height: Promise<number> = client.block.getBlockCount();
export const address: string = addressFromPublicKey('CH', getPublicKey(new Uint8Array(32).fill(1)));
export const signed: SignedOperation = signOperation(
  { type: 'nodeCancel', code: '0123456789abcdef' },
  { genesis: '00'.repeat(32), account: 1, nOperation: 2, fee: 0n },
  '11'.repeat(32),
);
// @ts-expect-error getWalletInfo requires { wallet }
client.wallet.getWalletInfo({});
`,
    );
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');

    const outcome = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: app,
    }).then(
      () => 'compiled',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );

    expect(outcome).toBe('compiled');
  });
});

/** The README's first ```js block (its "Example"), or undefined. */
async function readmeExample(dir: string, fence: 'js' | 'sh'): Promise<string | undefined> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  return new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(readme)?.[1];
}

describe('README examples, run against the installed tarballs', () => {
  const app = () => join(scratch, 'app');
  const bin = () => join(app(), 'node_modules', '.bin', 'chain-node');
  let node: ChildProcess | undefined;
  let rpcUrl = '';

  beforeAll(async () => {
    // The SDK's example talks to a node: the installed chain-node, on free ports.
    const child = spawn(
      bin(),
      ['start', '--datadir', join(scratch, 'node'), '--rpc-port', '0', '--p2p-port', '0'],
      {
        cwd: app(),
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    node = child;
    let out = '';
    rpcUrl = await new Promise<string>((resolveUrl, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk;
        const match = /JSON-RPC\s+(http:\/\/\S+)/.exec(out);
        if (match) resolveUrl(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`chain-node exited (${code}):\n${out}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (node && node.exitCode === null) {
      const exited = new Promise((done) => node!.once('exit', done));
      node.kill('SIGTERM');
      await exited;
    }
  });

  it.each((Object.keys(PACKAGES) as PackageName[]).filter((name) => name !== 'chain-node'))(
    '%s: its README example runs',
    async (name) => {
      const code = await readmeExample(PACKAGES[name], 'js');
      expect(code, `${name}'s README has no \`\`\`js example`).toBeDefined();
      const file = join(app(), `readme-${name.replace(/\W/g, '-')}.mjs`);
      await writeFile(file, code!);
      const { stdout } = await run(process.execPath, [file], {
        cwd: app(),
        env: { ...cleanEnv(), CHAIN_RPC_URL: rpcUrl },
        timeout: 60_000,
      });
      expect(stdout.trim()).not.toBe('');
    },
    90_000,
  );

  it('chain-node: its README commands run', async () => {
    const script = await readmeExample(PACKAGES['chain-node'], 'sh');
    const commands = script!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(
        (line) => line.startsWith('npx chain-node ') && !line.startsWith('npx chain-node start'),
      );
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const outputs: string[] = [];
    for (const command of commands) {
      const args = command.slice('npx chain-node '.length).split(/\s+/);
      outputs.push((await run(bin(), args, { cwd: app(), env: cleanEnv() })).stdout);
    }
    expect(outputs.join('')).toMatch(/wrote genesis\.json: network demo/);
  });
});
