import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN, devWallet, mined, type OperationObject, type WalletInfo } from './harness/chain';
import { CHAIN_NODE_BIN, call, type NodeProcess, startNode } from './harness/node-process';

// `chain-node call` against a real node: output, exit codes (0 ok, 1 JSON-RPC error, 2 usage,
// 3 no reply) and what actually reaches the node.
let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '200'] });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

interface CallRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `chain-node call ...` with the test node's URL unless the args give another. */
function chainCall(
  args: string[],
  options: { input?: string; url?: string | null } = {},
): Promise<CallRun> {
  const url = options.url === undefined ? node.url : options.url;
  const argv = [CHAIN_NODE_BIN, 'call', ...args, ...(url === null ? [] : ['--rpc-url', url])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chain-node call ${args.join(' ')} hung\n${stdout}\n${stderr}`));
    }, 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** How many calls of each method the node has served. */
async function callCounts(): Promise<Map<string, number>> {
  const stats = await call<Array<{ method: string; calls: number }>>(node.url, 'rpcCallStats');
  return new Map(stats.map((row) => [row.method, row.calls]));
}

describe('chain-node call', () => {
  it('prints a scalar result bare and exits 0', async () => {
    const { code, stdout, stderr } = await chainCall(['getBlockCount']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(`${await call<number>(node.url, 'getBlockCount')}\n`);
  });

  it('pretty-prints an object with amounts in coins, and --json prints the exact result', async () => {
    const pretty = await chainCall(['getWalletInfo', `wallet=${dev}`]);
    expect(pretty.code).toBe(0);
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev });
    expect(pretty.stdout).toMatch(new RegExp(`^wallet\\s+${dev}$`, 'm'));
    expect(pretty.stdout).toMatch(/^state\s+normal wallet$/m);
    const coins = BigInt(info.balance) / COIN;
    expect(pretty.stdout).toMatch(
      new RegExp(`^balance\\s+${info.balance}\\s+\\(${coins}(\\.\\d+)? coins\\)$`, 'm'),
    );

    const json = await chainCall(['getWalletInfo', dev, '--json']);
    expect(json.code).toBe(0);
    expect(json.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toEqual(
      await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev }),
    );
  });

  it('sends a transfer from key=value words with the amount exact', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const sent = await chainCall([
      'sendTo',
      `sender=${dev}`,
      'passphrase=dev',
      `receiver=${wallet}`,
      'amount=1.000000000000000001',
      '--json',
    ]);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const op = JSON.parse(sent.stdout) as OperationObject;
    expect(op.amount).toBe((COIN + 1n).toString());
    await mined(node, op.ophash);
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
    expect(info.balance).toBe((COIN + 1n).toString());
  });

  it('retries a withdrawal with its reference: the same operation, paid once', async () => {
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' });
    const words = ['sendTo', `sender=${dev}`, 'passphrase=dev', `receiver=${wallet}`, 'amount=2'];
    const first = await chainCall([...words, 'reference=cli-order-7', '--json']);
    expect(first.code).toBe(0);
    const again = await chainCall([...words, 'reference=cli-order-7', '--json']);
    expect(again.code).toBe(0);
    const op = JSON.parse(first.stdout) as OperationObject;
    expect((JSON.parse(again.stdout) as OperationObject).ophash.slice(8)).toBe(op.ophash.slice(8));
    const other = await chainCall([...words.slice(0, 4), 'amount=3', 'reference=cli-order-7']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/REFERENCE_REUSED/);
    await mined(node, op.ophash);
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
    expect(info.balance).toBe((2n * COIN).toString());
  });

  it('keeps every digit of a number in --params JSON', async () => {
    const receiver = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' }))
      .wallet;
    const sent = await chainCall([
      'sendTo',
      '--params',
      `{"sender":"${dev}","passphrase":"dev","receiver":"${receiver}","amount":1.234567890123456789}`,
      '--json',
    ]);
    expect(sent.stderr).toBe('');
    expect((JSON.parse(sent.stdout) as OperationObject).amount).toBe('1234567890123456789');
  });

  it('reads params JSON from stdin, so a passphrase needs no argv', async () => {
    const input = JSON.stringify({ wallet: dev, passphrase: 'dev', message: 'from stdin' });
    const signed = await chainCall(['signMessage', '--stdin', '--json'], { input });
    expect(signed.code).toBe(0);
    const message = JSON.parse(signed.stdout) as { wallet: string; msg: string };
    expect(message).toMatchObject({ wallet: dev, msg: 'from stdin' });
    const verified = await chainCall(['verifyMessage', `data=${signed.stdout.trim()}`]);
    expect(verified).toMatchObject({ code: 0, stdout: 'true\n' });
  });

  it('exits 1 on a JSON-RPC error and prints code, reason, message and param', async () => {
    const count = await call<number>(node.url, 'getBlockCount');
    const { code, stdout, stderr } = await chainCall(['getBlockInfo', String(count + 100)]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error 1003 BLOCK_NOT_FOUND: .*\(param block\)\n$/);

    const wrong = await chainCall(['sendTo', dev, 'not-the-passphrase', dev, '1', '--json'], {});
    expect(wrong.code).toBe(1);
    const { error } = JSON.parse(wrong.stderr) as {
      error: { code: number; data: { reason: string; param?: string } };
    };
    expect(error.code).toBeGreaterThan(1000);
    expect(error.data.reason).toMatch(/^[A-Z_]+$/);
    expect(wrong.stderr).not.toContain('not-the-passphrase');
  });

  it('exits 2 on a usage error and sends nothing', async () => {
    const before = await callCounts();
    const cases: Array<[string[], RegExp]> = [
      [['getblockcount'], /did you mean 'getBlockCount'/],
      [['getBlockInfo', 'block=one'], /block must be an integer/],
      [['getBlockInfo', 'blok=1'], /unknown param 'blok'/],
      [['getBlockInfo', '1', '2'], /takes 1 param/],
      [['getBlockInfo', '--params', '{nope'], /--params is not JSON/],
      [['getBlockCount', '--bogus-flag'], /bogus-flag/],
      [[], /say which method/],
    ];
    const runs = await Promise.all(cases.map(([args]) => chainCall(args)));
    cases.forEach(([args, message], index) => {
      const run = runs[index]!;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stdout, args.join(' ')).toBe('');
    });
    const after = await callCounts();
    expect(after.get('getBlockCount')).toBe(before.get('getBlockCount'));
    expect(after.get('getBlockInfo')).toBe(before.get('getBlockInfo'));
  });

  it('exits 3 when nothing answers, or something that is not a JSON-RPC node', async () => {
    const closed = await freePort();
    const refused = await chainCall(['getBlockCount'], { url: `http://127.0.0.1:${closed}/` });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /cannot connect to http:\/\/127\.0\.0\.1:\d+\/ \(ECONNREFUSED\)/,
    );

    const web = await listen((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not here</h1>');
    });
    try {
      const notNode = await chainCall(['getBlockCount'], { url: web.url });
      expect(notNode.code).toBe(3);
      expect(notNode.stderr).toMatch(/no JSON-RPC reply .*HTTP 404/);
    } finally {
      web.server.close();
    }

    const silent = await listen(() => {
      // never answers
    });
    try {
      const slow = await chainCall(['getBlockCount', '--timeout', '300'], { url: silent.url });
      expect(slow.code).toBe(3);
      expect(slow.stderr).toMatch(/no reply .* within 300 ms/);
    } finally {
      silent.server.closeAllConnections();
      silent.server.close();
    }
  });

  it('uses --rpc-host/--rpc-port and Basic credentials', async () => {
    const secured = await startNode({ args: ['--rpc-user', 'alice', '--rpc-password', 's3cret'] });
    try {
      const { port } = new URL(secured.url);
      const base = ['getBlockCount', '--rpc-host', '127.0.0.1', '--rpc-port', port];
      const denied = await chainCall(base, { url: null });
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/^error -32002 UNAUTHORIZED/);

      const flags = await chainCall([...base, '--rpc-user', 'alice', '--rpc-password', 's3cret'], {
        url: null,
      });
      expect(flags).toMatchObject({ code: 0, stdout: '1\n' });

      const inUrl = await chainCall(['getBlockCount'], {
        url: `http://alice:s3cret@127.0.0.1:${port}/`,
      });
      expect(inUrl).toMatchObject({ code: 0, stdout: '1\n' });
    } finally {
      await secured.stop();
    }
  });
});

describe('chain-node call: token amounts', () => {
  it('shows token amounts in token units with the symbol and base units, exactly', async () => {
    // A supply past 2^53 base units: a JS number would round it.
    const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
      wallet: dev,
      passphrase: 'dev',
      function: true,
      name: 'Example',
      symbol: 'EXT',
      summary: 'CLI amounts',
      totalAmount: '1000000000000000',
      decimal: 4,
    });
    await mined(node, created.ophash);
    const token = created.token;
    const { wallet: receiver } = await call<{ wallet: string }>(node.url, 'newWallet', {
      passphrase: 'pw',
    });

    const sent = await chainCall([
      'sendToken',
      `sender=${dev}`,
      'passphrase=dev',
      `receiver=${receiver}`,
      'amount=1.5',
      `token=${token}`,
    ]);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^amount\s+1\.5 EXT\s+\(15000 base units\)$/m);
    // The fee stays in coins.
    expect(sent.stdout).toMatch(/^oprice\s+\d+\s+\([\d.]+ coins\)$/m);
    const ophash = /^ophash\s+([0-9a-f]{64})$/m.exec(sent.stdout)![1]!;
    await mined(node, ophash);

    // A list of operations: each token operation's amount in its token's units.
    const found = await chainCall(['findOperation', `ophash=${ophash}`]);
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^\s+amount\s+1\.5 EXT\s+\(15000 base units\)$/m);

    // infoToken carries its own decimal places: its total in units and base units.
    const info = await chainCall(['infoToken', token]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(
      /^totalAmount\s+1000000000000000 EXT\s+\(10000000000000000000 base units\)$/m,
    );

    // holderToken's balances, in the units infoToken gives.
    const holders = await chainCall(['holderToken', `wallet=${token}`]);
    expect(holders.code).toBe(0);
    expect(holders.stdout).toMatch(
      /^\s+balance\s+999999999999998\.5 EXT\s+\(9999999999999985000 base units\)$/m,
    );
    expect(holders.stdout).toMatch(/^\s+balance\s+1\.5 EXT\s+\(15000 base units\)$/m);
    expect(holders.stdout).toMatch(/^\s+volumeLock\s+0 EXT\s+\(0 base units\)$/m);

    // --json stays the exact result, base units.
    const json = await chainCall(['holderToken', `wallet=${token}`, '--json']);
    const balances = (JSON.parse(json.stdout) as { holder: Array<{ balance: string }> }).holder.map(
      (holder) => holder.balance,
    );
    expect(balances.sort()).toEqual(['15000', '9999999999999985000']);
  });
});

async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

async function freePort(): Promise<number> {
  const { server, url } = await listen(() => undefined);
  await new Promise((resolve) => server.close(resolve));
  return Number(new URL(url).port);
}
