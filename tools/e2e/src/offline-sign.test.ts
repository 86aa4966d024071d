/**
 * Every operation type built and signed offline twice, by the @chain/offline builders and by
 * `chain-node sign-raw`, from public inputs only (the genesis hash, account numbers, n_operation,
 * the act price): both must give the same raw operation, which excuteRaw accepts and a block mines.
 * The operations run a whole story on the dev network: activations (of a new address and of a funded
 * one), transfers, a token (create, send, administer) and the participation procedure from nodeStep1
 * to blockchainStart and nodeCancel.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  encodePrivateKey,
  getPublicKey,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import {
  encodeRaw,
  NEW_ACCOUNT,
  type OperationInput,
  type SignedOperation,
  type SigningContext,
  signMineConsent,
  signOperation,
} from '@chain/offline';
import { createClient, signingContextOf } from '@chain/rpc-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN, devWallet, mined, type OperationObject, type WalletInfo } from './harness/chain';
import { makeKeyFile } from './harness/key-file';
import { CHAIN_NODE_BIN, call, type NodeProcess, startNode } from './harness/node-process';

const LIGHT_SCRYPT = { N: 1 << 10, r: 8, p: 1 };
const HARDWARE = {
  CPU: '{"cores":2}',
  RAM: '{"total":1024}',
  GPU: '{"controllers":[]}',
  DISK: 'ssd',
};

interface Party {
  key: Uint8Array;
  address: string;
}

const party = (name: string): Party => {
  const key = sha256(utf8ToBytes(`offline-sign e2e ${name}`));
  return { key, address: addressFromPublicKey('CH', getPublicKey(key)) };
};

const p = {
  fresh: party('fresh'), // activates an address never on chain
  alice: party('alice'),
  top: party('top'),
  topMiner: party('top miner'),
  mine: party('mine'),
  share: party('share'),
  middle: party('middle'),
  middleMiner: party('middle miner'),
  bottom: party('bottom'),
  bottomMiner: party('bottom miner'),
};

let node: NodeProcess;
let scratch: string;
let genesis: string;
let fee: bigint;

/** How the CLI gets the signer's key. */
type KeyVia = 'env' | 'stdin' | 'file';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runSignRaw(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHAIN_NODE_BIN, 'sign-raw', ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function keyFileOf(who: Party, passphrase: string): Promise<string> {
  const file = join(scratch, `${who.address}.json`);
  await writeFile(file, (await makeKeyFile(who.key, passphrase, LIGHT_SCRYPT)).json);
  return file;
}

/** The CLI's key arguments and environment for `who`, by one of its three ways. */
async function keyArgs(
  who: Party,
  via: KeyVia,
): Promise<{ args: string[]; env: Record<string, string>; stdin: string }> {
  const encoded = encodePrivateKey(who.key);
  if (via === 'env') return { args: [], env: { CHAIN_SIGN_PRIVATE_KEY: encoded }, stdin: '' };
  if (via === 'stdin') return { args: ['--private-key-stdin'], env: {}, stdin: `${encoded}\n` };
  const file = await keyFileOf(who, 'file pass');
  return { args: ['--key-file', file], env: { CHAIN_SIGN_PASSPHRASE: 'file pass' }, stdin: '' };
}

/** The signer's public inputs, as a wallet would read them from the node. */
async function contextOf(who: Party): Promise<SigningContext> {
  const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: who.address });
  return info.account < 0
    ? { genesis, prefix: 'CH', account: NEW_ACCOUNT, nOperation: 1, fee: 0n }
    : { genesis, prefix: 'CH', account: info.account, nOperation: info.n_operation + 1, fee };
}

function contextFlags(context: SigningContext): string[] {
  return [
    '--genesis-hash',
    String(context.genesis),
    '--account',
    context.account === NEW_ACCOUNT ? 'new' : String(context.account),
    '--n-operation',
    String(context.nOperation),
    '--fee',
    context.fee.toString(),
  ];
}

/**
 * Signs `input` with @chain/offline and with `chain-node sign-raw <flags>` (the same operation in
 * the CLI's terms), expects the same raw operation, submits it with excuteRaw and waits for its block.
 */
async function both(
  who: Party,
  input: OperationInput,
  flags: string[],
  via: KeyVia = 'env',
): Promise<{ signed: SignedOperation; op: OperationObject }> {
  const context = await contextOf(who);
  const signed = signOperation(input, context, who.key);
  const rawoperation = encodeRaw([signed]);
  const key = await keyArgs(who, via);
  const cli = await runSignRaw(
    [input.type, ...contextFlags(context), ...flags, ...key.args, '--json'],
    key.env,
    key.stdin,
  );
  expect(cli.stderr).toBe('');
  expect(cli.code).toBe(0);
  const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
  expect(printed).toMatchObject({ rawoperation, ophash: signed.ophash, type: input.type });
  const result = await call<OperationObject & { errors?: string }>(node.url, 'excuteRaw', {
    rawoperation,
  });
  expect(result.errors).toBeUndefined();
  expect(result.ophash).toBe(signed.ophash);
  const op = await mined(node, signed.ophash);
  expect(op.optype).toBe(signed.optype);
  return { signed, op };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'offline-sign-'));
  node = await startNode({ args: ['--block-time', '0'] });
  genesis = (await call<{ genesis: string }>(node.url, 'nodeStatus')).genesis;
  fee = BigInt(await call<number>(node.url, 'getActPrice'));
  const funded: Array<[Party, string]> = [
    [p.alice, '10'],
    [p.top, '200'],
    [p.mine, '1'],
    [p.middle, '20'],
    [p.bottom, '5'],
  ];
  for (const [who, coins] of funded) {
    const op = await call<OperationObject>(node.url, 'sendTo', {
      sender: devWallet(node),
      passphrase: 'dev',
      receiver: who.address,
      amount: coins,
    });
    await mined(node, op.ophash);
  }
});

afterAll(async () => {
  await node?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('offline signing of every operation type (builders and chain-node sign-raw agree)', () => {
  it('activation: of an address not on chain (NEW_ACCOUNT, fee 0) and of funded wallets', async () => {
    await both(p.fresh, { type: 'activation' }, [], 'stdin');
    expect(
      await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: p.fresh.address }),
    ).toMatchObject({
      state: 'normal wallet',
      n_operation: 1,
    });
    await both(p.alice, { type: 'activation' }, [], 'file');
    for (const who of [p.top, p.mine, p.middle, p.bottom]) {
      const signed = signOperation({ type: 'activation' }, await contextOf(who), who.key);
      await call(node.url, 'excuteRaw', { rawoperation: encodeRaw([signed]) });
      await mined(node, signed.ophash);
    }
  });

  it('transfer: by address with a payload, and by account number', async () => {
    const { op } = await both(
      p.alice,
      { type: 'transfer', receiver: p.fresh.address, amount: COIN, payload: 'cafe' },
      ['--receiver', p.fresh.address, '--amount', '1', '--payload', 'cafe'],
    );
    expect(op.senders[0]!.payload).toBe('cafe');
    const fresh = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: p.fresh.address });
    await both(p.fresh, { type: 'transfer', receiver: 0, amount: COIN / 2n }, [
      '--receiver',
      '0',
      '--amount',
      '0.5',
    ]);
    expect(fresh.account).toBeGreaterThan(0);
  });

  it('sign-raw --rpc takes the public inputs from a node: the same bytes', async () => {
    const context = await contextOf(p.alice);
    const signed = signOperation(
      { type: 'transfer', receiver: 0, amount: 7n },
      context,
      p.alice.key,
    );
    const cli = await runSignRaw(
      ['transfer', '--rpc', node.url, '--receiver', '0', '--amount', '0.000000000000000007'],
      { CHAIN_SIGN_PRIVATE_KEY: bytesToHex(p.alice.key) },
    );
    expect(cli).toMatchObject({ code: 0, stderr: '' });
    expect(cli.stdout.trim()).toBe(encodeRaw([signed]));
  });

  it('the SDK reads the signing context from the node, signs and submits', async () => {
    const client = createClient({ url: node.url });
    const context = await signingContextOf(client, p.alice.address);
    expect(context).toEqual(await contextOf(p.alice));
    const signed = signOperation(
      { type: 'transfer', receiver: 0, amount: 3n },
      context,
      p.alice.key,
    );
    const result = await client.operations.excuteRaw({ rawoperation: encodeRaw([signed]) });
    expect(result).toMatchObject({ ophash: signed.ophash });
    await mined(node, signed.ophash);
  });

  it('createToken, sendToken and adminToken', async () => {
    const { signed } = await both(
      p.alice,
      {
        type: 'createToken',
        name: 'Offline',
        symbol: 'OFF',
        summary: 'signed offline',
        decimal: 2,
        supply: 100_000n,
        advanced: true,
      },
      [
        '--name',
        'Offline',
        '--symbol',
        'OFF',
        '--summary',
        'signed offline',
        '--decimal',
        '2',
        '--total-amount',
        '1000',
        '--function',
      ],
    );
    const token = signed.token!;
    expect(await call(node.url, 'infoToken', { wallet: token })).toMatchObject({
      decimal: 2,
      advanced: true,
    });
    await both(p.alice, { type: 'sendToken', token, receiver: p.fresh.address, amount: 1250n }, [
      '--token',
      token,
      '--receiver',
      p.fresh.address,
      '--amount',
      '12.5',
      '--decimal',
      '2',
    ]);
    await both(
      p.alice,
      {
        type: 'adminToken',
        method: 'lockWalletVolume',
        token,
        receiver: p.fresh.address,
        amount: 200n,
        lockBlocks: 0,
      },
      [
        '--method',
        'lockWalletVolume',
        '--token',
        token,
        '--receiver',
        p.fresh.address,
        '--amount',
        '2',
        '--decimal',
        '2',
        '--lock-blocks',
        '0',
      ],
    );
    await both(p.alice, { type: 'adminToken', method: 'transferEnabled', token, select: false }, [
      '--method',
      'transferEnabled',
      '--token',
      token,
      '--select',
      'false',
    ]);
    const holders = await call<{
      transfer: boolean;
      holder: Array<{ wallet: string; balance: string; volumeLock: string }>;
    }>(node.url, 'holderToken', { wallet: token });
    expect(holders.transfer).toBe(false);
    expect(holders.holder.find((h) => h.wallet === p.fresh.address)).toMatchObject({
      balance: '1250',
      volumeLock: '200',
    });
  });

  it('the participation procedure: nodeStep1 to nodeStep5_2, nodeCancel and blockchainStart', async () => {
    const hw = [
      '--cpu',
      HARDWARE.CPU,
      '--ram',
      HARDWARE.RAM,
      '--gpu',
      HARDWARE.GPU,
      '--disk',
      HARDWARE.DISK,
    ];
    const { signed } = await both(
      p.top,
      { type: 'nodeStep1', amount: 100n * COIN, miner: p.topMiner.address, penalty: 10 },
      ['--amount', '100', '--miner', p.topMiner.address, '--penalty', '10'],
    );
    const code = signed.code!;
    await both(
      p.top,
      { type: 'nodeStep2', code, hardware: HARDWARE },
      ['--code', code, ...hw],
      'file',
    );
    await both(
      p.middle,
      {
        type: 'nodeStep3_1',
        code,
        amount: 10n * COIN,
        miner: p.middleMiner.address,
        confirmer: p.top.address,
      },
      [
        '--code',
        code,
        '--amount',
        '10',
        '--miner',
        p.middleMiner.address,
        '--confirmer',
        p.top.address,
      ],
    );
    await both(p.top, { type: 'nodeStep3_2', code, target: p.middle.address, select: true }, [
      '--code',
      code,
      '--target',
      p.middle.address,
      '--select',
    ]);
    await both(
      p.middle,
      { type: 'nodeStep4_1', code, confirmer: p.top.address, hardware: HARDWARE },
      ['--code', code, '--confirmer', p.top.address, ...hw],
    );
    await both(p.top, { type: 'nodeStep4_2', code, target: p.middle.address, select: true }, [
      '--code',
      code,
      '--target',
      p.middle.address,
      '--select',
      'true',
    ]);
    await both(
      p.bottom,
      {
        type: 'nodeStep5_1',
        code,
        amount: COIN,
        miner: p.bottomMiner.address,
        main: p.top.address,
        confirmer: p.middle.address,
      },
      [
        '--code',
        code,
        '--amount',
        '1',
        '--miner',
        p.bottomMiner.address,
        '--main',
        p.top.address,
        '--confirmer',
        p.middle.address,
      ],
    );
    await both(
      p.middle,
      { type: 'nodeStep5_2', code, main: p.top.address, target: p.bottom.address, select: true },
      ['--code', code, '--main', p.top.address, '--target', p.bottom.address, '--select'],
    );
    expect(
      await call<{ result: { state: string } }>(node.url, 'getNodePart', {
        wallet: p.bottom.address,
      }),
    ).toMatchObject({ result: { state: 'BA' } });
    await both(p.bottom, { type: 'nodeCancel', code }, ['--code', code]);

    const mineKeyFile = await keyFileOf(p.mine, 'mine pass');
    const passFile = join(scratch, 'mine-pass.txt');
    await writeFile(passFile, 'mine pass\n');
    await both(
      p.top,
      {
        type: 'blockchainStart',
        code,
        mine: p.mine.address,
        share: p.share.address,
        nodes: '127.0.0.1',
        mineConsent: signMineConsent(genesis, code, p.mine.key),
      },
      [
        '--code',
        code,
        '--mine-address',
        p.mine.address,
        '--share',
        p.share.address,
        '--nodes',
        '127.0.0.1',
        '--mine-key-file',
        mineKeyFile,
        '--mine-key-passphrase-file',
        passFile,
      ],
    );
    expect(
      await call<{ result: { state: string } }>(node.url, 'getNodePart', { wallet: p.top.address }),
    ).toMatchObject({ result: { state: 'MN' } });
  });
});

describe('chain-node sign-raw keeps keys out of argv and says what is wrong', () => {
  const context = [
    '--genesis-hash',
    '00'.repeat(32),
    '--account',
    '1',
    '--n-operation',
    '1',
    '--fee',
    '0',
  ];

  it('has no flag that takes a private key', async () => {
    const key = encodePrivateKey(p.alice.key);
    const run = await runSignRaw([
      'transfer',
      ...context,
      '--receiver',
      '0',
      '--amount',
      '1',
      '--private-key',
      key,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Unknown argument/);
    expect(run.stderr).not.toContain(key.slice(8));
  });

  it('exit 1 on a wrong key file passphrase, 2 on a bad input naming its flag', async () => {
    const file = await keyFileOf(p.alice, 'right');
    const wrong = await runSignRaw(
      ['transfer', ...context, '--receiver', '0', '--amount', '1', '--key-file', file],
      { CHAIN_SIGN_PASSPHRASE: 'wrong' },
    );
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/wrong passphrase/);
    const bad = await runSignRaw(
      ['transfer', ...context, '--receiver', `${p.fresh.address.slice(0, 47)}x`, '--amount', '1'],
      { CHAIN_SIGN_PRIVATE_KEY: encodePrivateKey(p.alice.key) },
    );
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/--receiver/);
  });
});
