import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGenesis } from '@chain/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { formatNodeLogLine } from './devnet-log';
import { createDevnet, DevnetUsageError, devnetStartArgs, readDevnet } from './devnet-setup';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'devnet-setup-'));
  dirs.push(dir);
  return dir;
}

/** Addresses whose key files are in a data directory's key store. */
async function keyStoreAddresses(datadir: string): Promise<string[]> {
  const files = (await readdir(join(datadir, 'keystore'))).filter((f) => f.startsWith('UTC--'));
  return files.map((f) => /(CH[0-9a-f]{46})/.exec(f)![1]!).sort();
}

describe('createDevnet', () => {
  it('gives each producer node only its own producer key, and every node the prefunded wallets', async () => {
    const dir = await tempDir();
    const plan = {
      dir,
      nodes: 3,
      producers: 2,
      accounts: 2,
      balance: '500',
      network: 'devnet',
      passphrase: 'pw',
    };
    const manifest = await createDevnet(plan);
    const genesis = parseGenesis(await readFile(manifest.genesis, 'utf8'));
    expect(genesis.producers).toEqual(manifest.nodes.slice(0, 2).map((n) => n.producer));
    expect(manifest.nodes[2]!.producer).toBeUndefined();
    const wallets = manifest.accounts.map((a) => a.address);
    for (const address of wallets) {
      const account = genesis.accounts.find((a) => a.address === address)!;
      // Prefunded and active (public key on chain), so it can sign at once.
      expect(account.balance).toBe(500n * 10n ** 18n);
      expect(account.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    }
    const [p1, p2] = genesis.producers;
    expect(await keyStoreAddresses(manifest.nodes[0]!.datadir)).toEqual([p1!, ...wallets].sort());
    expect(await keyStoreAddresses(manifest.nodes[1]!.datadir)).toEqual([p2!, ...wallets].sort());
    expect(await keyStoreAddresses(manifest.nodes[2]!.datadir)).toEqual([...wallets].sort());
    expect(await readDevnet(dir)).toEqual(manifest);
    // Writing a second devnet into the same directory is refused.
    await expect(createDevnet(plan)).rejects.toThrow();
  });

  it('refuses more producers than nodes', async () => {
    const plan = { dir: await tempDir(), nodes: 2, producers: 3, accounts: 1 };
    await expect(
      createDevnet({ ...plan, balance: '1', network: 'devnet', passphrase: 'pw' }),
    ).rejects.toThrow(DevnetUsageError);
  });

  it('starts node i dialling every other node, producers with their mine wallet', async () => {
    const manifest = await createDevnet({
      dir: await tempDir(),
      nodes: 3,
      accounts: 1,
      balance: '1',
      network: 'devnet',
      passphrase: 'pw',
    });
    const args = devnetStartArgs(manifest, 1, { host: '127.0.0.1', basePort: 9713 });
    expect(args.join(' ')).toContain('--rpc-port 9715 --p2p-host 127.0.0.1 --p2p-port 9716');
    expect(args.join(' ')).toContain('--peers 127.0.0.1:9714;127.0.0.1:9718');
    expect(args.join(' ')).toContain(`--mine-wallet ${manifest.nodes[1]!.producer}`);
  });
});

describe('formatNodeLogLine', () => {
  it('shows a pino record as one prefixed line and passes other lines through', () => {
    const record = JSON.stringify({ level: 30, time: 0, msg: 'peer connected', peer: '1.2.3.4' });
    expect(formatNodeLogLine('node2', record)).toMatch(
      /^node2 \| \d\d:\d\d:\d\d\.000 INFO {2}peer connected peer=1\.2\.3\.4$/,
    );
    expect(formatNodeLogLine('node1', '  JSON-RPC  http://x')).toBe('node1 |   JSON-RPC  http://x');
  });
});
