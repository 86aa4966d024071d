import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePrivateKey } from '@chain/crypto';
import { catalogue, type MethodSpec } from '@chain/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { call, type NodeProcess, post, startNode } from './harness/node-process';

// Secrets never leave: every key-using method runs with sentinel passphrases and private keys
// (right ones, wrong ones, malformed ones, misplaced ones), with the node logging at trace level;
// then the logs, every reply, rpcCallStats and every file of the data directory (key files
// included: they hold the keys encrypted, so no sentinel either) are searched for the sentinels in
// every encoding they could take. Only dumpPrivateKey's own answer may carry a key back.
const PASSPHRASE = 'Sentinel-Pass-9f2c1d';
const WRONG_PASSPHRASE = 'Sentinel-Wrong-77ab3e';
const MINE_PASSPHRASE = 'Sentinel-Mine-31f0aa';
/** Valid secp256k1 scalars, easy to spot in any encoding. */
const KEY = new Uint8Array(32).fill(0x5e);
const OTHER_KEY = new Uint8Array(32).fill(0x6f);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Every form a sentinel could leak in: text, hex (both cases), base64, raw bytes. */
function forms(): Array<{ name: string; bytes: Buffer }> {
  const out: Array<{ name: string; bytes: Buffer }> = [];
  for (const passphrase of [PASSPHRASE, WRONG_PASSPHRASE, MINE_PASSPHRASE]) {
    const utf8 = Buffer.from(passphrase, 'utf8');
    out.push({ name: passphrase, bytes: utf8 });
    out.push({ name: `${passphrase} (hex)`, bytes: Buffer.from(utf8.toString('hex')) });
    out.push({ name: `${passphrase} (base64)`, bytes: Buffer.from(utf8.toString('base64')) });
  }
  for (const [name, key] of [
    ['key', KEY],
    ['other key', OTHER_KEY],
  ] as const) {
    out.push({ name: `${name} (raw)`, bytes: Buffer.from(key) });
    out.push({ name: `${name} (hex)`, bytes: Buffer.from(hex(key)) });
    out.push({ name: `${name} (HEX)`, bytes: Buffer.from(hex(key).toUpperCase()) });
    out.push({ name: `${name} (base64)`, bytes: Buffer.from(Buffer.from(key).toString('base64')) });
  }
  return out;
}

function findSentinels(haystack: Buffer): string[] {
  return forms()
    .filter(({ bytes }) => haystack.includes(bytes))
    .map(({ name }) => name);
}

let node: NodeProcess;
/** --log-file's directory: the log file and its rotations are searched too. */
let logDir: string;
/** Every reply body the node sent, except dumpPrivateKey's successful answers. */
const replies: string[] = [];
let callsMade = 0;

async function send(
  method: string,
  params: unknown,
): Promise<{ result?: unknown; error?: { message: string } }> {
  const { text, json } = await post(
    node.url,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  );
  callsMade++;
  const reply = json as { result?: unknown; error?: { message: string } };
  if (!(method === 'dumpPrivateKey' && reply.error === undefined)) replies.push(text);
  return reply;
}

/** A plausible value for a param that is not a secret (the secrets are the test's to choose). */
function plainValue(name: string, kind: string, wallet: string): unknown {
  if (kind === 'wallet') return wallet;
  if (kind === 'amount') return '1';
  if (kind === 'integer') return 1;
  if (kind === 'boolean') return true;
  if (kind === 'hex') return '';
  if (kind === 'enum') return 'transferEnabled';
  if (name === 'nodes') return '127.0.0.1';
  return 'c0de';
}

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'chain-e2e-logs-'));
  node = await startNode({
    args: [
      '--log-level',
      'trace',
      '--block-time',
      '100',
      // Small files, so that rotation happens while the secrets go by.
      '--log-file',
      join(logDir, 'node.log'),
      '--log-file-size',
      '1k',
      '--log-file-count',
      '1000',
    ],
    keepDatadir: true,
  });
});

afterAll(async () => {
  if (node) await rm(node.datadir, { recursive: true, force: true });
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

describe('secrets', () => {
  it('leave no trace in logs, replies, stats or the data directory', async () => {
    const dev = devWallet(node);
    // Wallet group.
    const created = await send('newWallet', { passphrase: PASSPHRASE });
    const made = (created.result as { wallet: string }).wallet;
    await send('unlockWallet', { wallet: made, passphrase: WRONG_PASSPHRASE });
    await send('unlockWallet', [made, PASSPHRASE]);
    await send('lockWallet', { wallet: made });
    await send('dumpPrivateKey', { wallet: made, passphrase: PASSPHRASE });
    await send('unlockWallet', { wallet: made, passphrase: PASSPHRASE });
    await send('dumpPrivateKey', { wallet: made, passphrase: WRONG_PASSPHRASE });
    const imported = await send('inputPrivateKey', {
      private: encodePrivateKey(KEY),
      passphrase: PASSPHRASE,
    });
    const wallet = (imported.result as { wallet: string }).wallet;
    await send('inputPrivateKey', { private: hex(KEY).toUpperCase(), passphrase: PASSPHRASE });
    await send('inputPrivateKey', { private: `${hex(KEY)}00`, passphrase: PASSPHRASE });
    await send('inputPrivateKey', { private: `zz${hex(KEY)}`, passphrase: PASSPHRASE });
    await send('dumpPrivateKey', { wallet, passphrase: PASSPHRASE });
    await send('signMessage', { wallet, passphrase: PASSPHRASE, message: 'hello' });
    await send('signMessage', { wallet, passphrase: WRONG_PASSPHRASE, message: 'hello' });

    // On chain: fund the imported wallet, activate it with its key, spend with key and passphrase.
    const funding = await call<OperationObject>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver: wallet,
      amount: '10',
    });
    await mined(node, funding.ophash);
    await send('activeWallet', { wallet, private: encodePrivateKey(OTHER_KEY) });
    // With the key store's passphrase instead of the key (issue 42): wrong, both given, right.
    await send('activeWallet', { wallet, passphrase: WRONG_PASSPHRASE });
    await send('activeWallet', { wallet, passphrase: PASSPHRASE, private: encodePrivateKey(KEY) });
    const byPassphrase = await send('activeWallet', { wallet: made, passphrase: PASSPHRASE });
    expect(byPassphrase.error).toBeUndefined();
    const activation = await send('activeWallet', { wallet, private: encodePrivateKey(KEY) });
    expect(activation.error).toBeUndefined();
    await send('sendTo', { sender: wallet, passphrase: PASSPHRASE, receiver: dev, amount: '1' });
    await send('sendTo', {
      sender: wallet,
      passphrase: WRONG_PASSPHRASE,
      receiver: dev,
      amount: '1',
    });
    await send('privSendTo', {
      sender: wallet,
      priv: encodePrivateKey(KEY),
      receiver: dev,
      amount: '1',
    });
    await send('privSendTo', {
      sender: wallet,
      priv: encodePrivateKey(OTHER_KEY),
      receiver: dev,
      amount: '1',
    });
    await send('rawSendTo', {
      senderAccount: 1,
      senderWallet: wallet,
      senderNOperation: 0,
      passphrase: PASSPHRASE,
      receiverAccount: 0,
      amount: '1',
    });
    await send('rawSendTo', {
      senderAccount: 1,
      senderWallet: wallet,
      senderNOperation: 0,
      passphrase: WRONG_PASSPHRASE,
      receiverAccount: 0,
      amount: '1',
    });

    // Every other method with a secret param (tokens, participation, ...): right and wrong secrets.
    const secretMethods = (Object.values(catalogue) as MethodSpec[]).filter((spec) =>
      Object.values(spec.params).some((param) => param.isSecret),
    );
    expect(secretMethods.length).toBeGreaterThan(10);
    for (const spec of secretMethods) {
      for (const passphrase of [PASSPHRASE, WRONG_PASSPHRASE]) {
        const params: Record<string, unknown> = {};
        for (const [name, param] of Object.entries(spec.params)) {
          if (!param.isSecret) params[name] = plainValue(name, param.kind, wallet);
          else if (param.kind === 'hex') params[name] = encodePrivateKey(KEY);
          else params[name] = name === 'minepass' ? MINE_PASSPHRASE : passphrase;
        }
        await send(spec.name, params);
      }
    }

    // Secrets in the wrong shape or the wrong place.
    for (const passphrase of [[PASSPHRASE], { passphrase: PASSPHRASE }, 42]) {
      await send('unlockWallet', { wallet, passphrase });
    }
    await send('unlockWallet', { wallet, passphrse: PASSPHRASE });
    await send('unlockWallet', [wallet, PASSPHRASE, PASSPHRASE]);
    await send('newWallet', { passphrase: PASSPHRASE, private: hex(KEY) });
    await send('privSendTo', { sender: wallet, priv: `${hex(KEY)}zz`, receiver: dev, amount: '1' });
    await send('activeWallet', { wallet: 'CH00', private: encodePrivateKey(KEY) });

    const stats = await post(
      node.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpcCallStats' }),
    );
    expect(await node.stop()).toBe(0);

    const leaks: string[] = [];
    const check = (where: string, haystack: Buffer) => {
      for (const found of findSentinels(haystack)) leaks.push(`${found} in ${where}`);
    };
    check('stdout', Buffer.from(node.stdout()));
    check('stderr', Buffer.from(node.stderr()));
    check('rpcCallStats', Buffer.from(stats.text));
    replies.forEach((reply, i) => {
      check(`reply ${i}`, Buffer.from(reply));
    });
    const files = await listFiles(node.datadir);
    for (const file of files) check(file, await readFile(file));
    const logFiles = await listFiles(logDir);
    const logged = Buffer.concat(await Promise.all(logFiles.map((file) => readFile(file))));
    for (const file of logFiles) check(file, await readFile(file));

    // The searches can find what they look for: the sentinels were really sent.
    expect(findSentinels(Buffer.from(JSON.stringify({ PASSPHRASE, key: hex(KEY) })))).not.toEqual(
      [],
    );
    expect(node.stdout()).toMatch(/"level":10|"level":20/); // trace/debug lines were written
    expect(files.length).toBeGreaterThan(5);
    // The log file got every record, trace/debug ones included, across rotations.
    expect(logFiles.length).toBeGreaterThan(1);
    expect(logged.toString()).toMatch(/"level":10|"level":20/);
    expect(logged.toString().split('\n').length).toBeGreaterThanOrEqual(
      node
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{')).length,
    );
    console.log(
      `secrets: ${callsMade} calls with sentinels (${secretMethods.length} methods with secret params), ` +
        `${forms().length} sentinel forms searched in stdout/stderr (${node.stdout().split('\n').length} log lines), ` +
        `${logFiles.length} log files (${logged.length} bytes), ` +
        `${replies.length} replies, rpcCallStats and ${files.length} data-directory files: ${leaks.length} hits`,
    );
    expect(leaks).toEqual([]);
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
