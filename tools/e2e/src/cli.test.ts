import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, makeDatadir, post, rpc, runChainNode, startNode } from './harness/node-process';

/** A loopback port held by another listener until `release()`. */
async function occupyPort(): Promise<{ port: number; release: () => void }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as { port: number };
  return { port, release: () => blocker.close() };
}

describe('chain-node command line', () => {
  it('prints usage with every start flag', async () => {
    const { code, stdout } = await runChainNode(['start', '--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--datadir',
      '--rpc-host',
      '--rpc-port',
      '--p2p-port',
      '--peers',
      '--network',
      '--genesis',
      '--block-time',
      '--no-mine',
      '--log-level',
    ]) {
      expect(stdout.includes(flag) || stdout.includes(flag.replace('--no-', '--'))).toBe(true);
    }
  });

  it('prints its version', async () => {
    const { code, stdout } = await runChainNode(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses an unknown flag with a clear message and no stack trace', async () => {
    const { code, stderr } = await runChainNode(['start', '--rpc-prot', '1']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/rpc-prot/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a bad port with a clear message', async () => {
    const { code, stderr } = await runChainNode(['start', '--rpc-port', '70000']);
    expect(code).toBe(2);
    expect(stderr).toContain('--rpc-port');
  });

  it('refuses P2P limits and a heap budget that are not whole numbers in range', async () => {
    for (const [flag, value] of [
      ['--p2p-max-connections', '0'],
      ['--p2p-max-inbound-per-ip', '1.5'],
      ['--max-heap-mb', '-1'],
    ]) {
      const { code, stderr } = await runChainNode(['start', flag!, value!]);
      expect(code, flag).toBe(2);
      expect(stderr, flag).toContain(flag);
    }
  });

  it('starts, serves getBlockCount within 5 seconds, prints what it serves', async () => {
    const started = Date.now();
    const node = await startNode();
    try {
      expect(await call(node.url, 'getBlockCount')).toBeGreaterThanOrEqual(1);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(node.stdout()).toMatch(/JSON-RPC\s+http:\/\/127\.0\.0\.1:\d+/);
      expect(node.stdout()).toMatch(/passphrase\s+dev/);
      expect(node.stdout()).toMatch(/wallet\s+CH[0-9a-f]{46}/);
    } finally {
      await node.stop();
    }
  });

  it('shuts down gracefully on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const node = await startNode();
      expect(await node.stop(signal)).toBe(0);
    }
  });

  it('fails fast with a clear message when the data directory is in use', async () => {
    const datadir = await makeDatadir();
    const first = await startNode({ datadir });
    try {
      const second = await runChainNode([
        'start',
        '--datadir',
        datadir,
        '--rpc-port',
        '0',
        '--p2p-port',
        '0',
      ]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/in use/);
      expect(second.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await first.stop();
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('fails with a clear message when the RPC port is taken', async () => {
    const { port, release } = await occupyPort();
    const datadir = await makeDatadir();
    try {
      const { code, stderr } = await runChainNode([
        'start',
        '--datadir',
        datadir,
        '--rpc-port',
        String(port),
        '--p2p-port',
        '0',
      ]);
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`port ${port}.*in use`));
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      release();
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('takes options from CHAIN_* environment variables and a config file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chain-cfg-'));
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ 'block-time': 0 }));
    const node = await startNode({
      args: ['--config', config],
      env: { CHAIN_DEV_PASSPHRASE: 'from-env' },
    });
    try {
      expect(node.stdout()).toMatch(/passphrase\s+from-env/);
      expect(node.stdout()).toMatch(/block time 0 ms/);
    } finally {
      await node.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('CHAIN_* environment variables', () => {
  // Operators' environments carry variables for other tools; only declared options are read.
  const unrelated = { CHAIN_UNRELATED_THING: '1', CHAIN_OTHER__NESTED: 'x' };

  it('starts despite unknown CHAIN_* variables and honours the known ones', async () => {
    const node = await startNode({ env: { ...unrelated, CHAIN_BLOCK_TIME: '0' } });
    try {
      expect(await call(node.url, 'getBlockCount')).toBeGreaterThanOrEqual(1);
      expect(node.stdout()).toMatch(/block time 0 ms/);

      const port = new URL(node.url).port;
      const count = await call<number>(node.url, 'getBlockCount');
      const viaEnv = await runChainNode(['call', 'getBlockCount'], {
        env: { ...unrelated, CHAIN_RPC_HOST: '127.0.0.1', CHAIN_RPC_PORT: port },
      });
      expect(viaEnv).toMatchObject({ code: 0, stdout: `${count}\n` });
    } finally {
      await node.stop();
    }
  });

  it('CHAIN_RPC_PORT sets the port `start` binds', async () => {
    const { port, release } = await occupyPort();
    const datadir = await makeDatadir();
    try {
      const { code, stderr } = await runChainNode(
        ['start', '--datadir', datadir, '--p2p-port', '0'],
        { env: { ...unrelated, CHAIN_RPC_PORT: String(port) } },
      );
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`port ${port}.*in use`));
    } finally {
      release();
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('still refuses an unknown flag, also one named like a variable that is set', async () => {
    for (const flag of ['--rpc-prot', '--unrelated-thing']) {
      const { code, stderr, stdout } = await runChainNode(['start', flag, '1'], { env: unrelated });
      expect(code, flag).toBe(2);
      expect(stderr, flag).toMatch(new RegExp(`Unknown argument.*${flag.slice(2)}`));
      expect(stdout, flag).toBe('');
    }
  });
});

describe('RPC exposure', () => {
  it('off loopback, requires the cookie file written at start and refuses key methods', async () => {
    const node = await startNode({ args: ['--rpc-host', '0.0.0.0'] });
    try {
      const url = node.url.replace('0.0.0.0', '127.0.0.1');
      const anonymous = await post(url, '{"jsonrpc":"2.0","method":"getBlockCount","id":1}');
      expect(anonymous.status).toBe(401);
      const cookie = (await readFile(join(node.datadir, '.cookie'), 'utf8')).trim();
      const headers = {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(cookie).toString('base64')}`,
      };
      const ok = await post(url, '{"jsonrpc":"2.0","method":"getBlockCount","id":1}', headers);
      expect((ok.json as { result: number }).result).toBeGreaterThanOrEqual(1);
      const dump = await post(
        url,
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'dumpPrivateKey',
          params: { wallet: `CH${'0'.repeat(46)}`, passphrase: 'x' },
          id: 1,
        }),
        headers,
      );
      expect(dump.json).toMatchObject({ error: { data: { reason: 'KEYS_NOT_ALLOWED' } } });
    } finally {
      await node.stop();
    }
  });

  it('off loopback with --rpc-user/--rpc-password, requires them', async () => {
    const node = await startNode({
      args: ['--rpc-host', '0.0.0.0', '--rpc-user', 'alice', '--rpc-password', 's3cret-pw'],
    });
    try {
      const url = node.url.replace('0.0.0.0', '127.0.0.1');
      const wrong = await post(url, '{"jsonrpc":"2.0","method":"getBlockCount","id":1}', {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('alice:nope').toString('base64')}`,
      });
      expect(wrong.status).toBe(401);
      const right = await post(url, '{"jsonrpc":"2.0","method":"getBlockCount","id":1}', {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`,
      });
      expect(right.status).toBe(200);
      expect(node.stdout()).not.toContain('s3cret-pw');
    } finally {
      await node.stop();
    }
  });

  it('on loopback needs no credentials', async () => {
    const node = await startNode();
    try {
      expect((await rpc(node.url, 'getBlockCount')).result).toBeGreaterThanOrEqual(1);
    } finally {
      await node.stop();
    }
  });
});
