import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addressFromPublicKey, decodePrivateKey, getPublicKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mined, type OperationObject, waitFor } from './harness/chain';
import { converged, removeDatadir } from './harness/network';
import { CHAIN_NODE_BIN, call, makeDatadir, type NodeProcess } from './harness/node-process';

// `chain-node devnet`: one command writes a genesis and N data directories and runs the N nodes,
// connected to each other, until Ctrl-C.
interface Manifest {
  accounts: Array<{ address: string; privateKey: string }>;
  passphrase: string;
  nodes: Array<{ name: string; datadir: string; producer?: string }>;
}

// Below Linux's ephemeral ports (32768 and up), which the other tests' nodes get by binding port 0.
const BASE_PORT = 20_000 + 2 * Math.floor(Math.random() * 6_000);
let dir: string;
let devnet: ChildProcess;
let output = '';
let exited: Promise<number | string>;
let manifest: Manifest;
let urls: string[];
let pids: number[];

/** The nodes as the network harness sees them (its helpers only read `url`). */
function node(i: number): NodeProcess {
  return { url: urls[i]! } as NodeProcess;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dir = await makeDatadir();
  devnet = spawn(
    process.execPath,
    [
      CHAIN_NODE_BIN,
      'devnet',
      '--nodes',
      '3',
      '--dir',
      dir,
      '--base-port',
      String(BASE_PORT),
      '--block-time',
      '200',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  devnet.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  devnet.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  exited = new Promise((done) => devnet.on('exit', (code, signal) => done(code ?? signal ?? -1)));
  await waitFor(
    'the devnet to start',
    async () => {
      if (devnet.exitCode !== null || devnet.signalCode !== null) {
        throw new Error(`the devnet exited at start:\n${output}`);
      }
      return output.includes('Ctrl-C stops every node');
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the devnet printed:\n${output}`);
  });
  manifest = JSON.parse(await readFile(join(dir, 'devnet.json'), 'utf8')) as Manifest;
  urls = [...output.matchAll(/^ {2}node\d\s+rpc (http:\/\/\S+)/gm)].map((m) => m[1]!);
  pids = [...output.matchAll(/ pid (\d+)/g)].map((m) => Number(m[1]));
}, 90_000);

afterAll(async () => {
  if (devnet.exitCode === null && devnet.signalCode === null) devnet.kill('SIGKILL');
  for (const pid of pids ?? []) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await removeDatadir(dir);
});

describe('chain-node devnet --nodes 3', () => {
  it('prints each node, its producer key and the prefunded wallets with their keys', () => {
    expect(urls).toHaveLength(3);
    expect(pids).toHaveLength(3);
    expect(manifest.nodes.filter((n) => n.producer)).toHaveLength(3);
    for (const account of manifest.accounts) {
      expect(output).toContain(`${account.address}  private key ${account.privateKey}`);
      const key = decodePrivateKey(account.privateKey);
      expect(addressFromPublicKey('CH', getPublicKey(key))).toBe(account.address);
    }
    expect(output).toContain(`passphrase "${manifest.passphrase}"`);
    // The merged log names every node.
    for (const name of ['node1 |', 'node2 |', 'node3 |']) expect(output).toContain(name);
  });

  it('a sendTo on node 2 with the printed passphrase is mined and seen on node 3', async () => {
    const [from, to] = manifest.accounts;
    const op = await call<OperationObject>(urls[1]!, 'sendTo', {
      sender: from!.address,
      passphrase: manifest.passphrase,
      receiver: to!.address,
      amount: '2.5',
    });
    const onChain = await mined(node(2), op.ophash);
    expect(onChain.amount).toBe('2500000000000000000');
    const head = await converged([node(0), node(1), node(2)]);
    expect(head.block).toBeGreaterThanOrEqual(1);
  });

  it('the printed private key signs on any node (privSendTo on node 3)', async () => {
    const [, second, third] = manifest.accounts;
    const op = await call<OperationObject>(urls[2]!, 'privSendTo', {
      sender: second!.address,
      priv: second!.privateKey,
      receiver: third!.address,
      amount: '1',
    });
    await mined(node(0), op.ophash);
  });

  it('SIGINT stops every node and the devnet exits 0', async () => {
    expect(pids.every(alive)).toBe(true);
    devnet.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
    expect(output).toContain('devnet: stopped');
  });
});
