/**
 * An independent wallet in Python (tools/e2e/py: standard library only, written from
 * docs/wire-format.md alone) against the real chain-node binary. Python generates its keys, reads the
 * genesis hash (nodeStatus) and its account (getWalletInfo), builds and signs every operation with its
 * own secp256k1, submits it with excuteRaw over plain HTTP, and the node mines it. Messages are
 * signed on one side and verified on the other. Skips, saying so, when python3 (>= 3.11) is absent.
 */
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COIN,
  devWallet,
  mined,
  type OperationObject,
  type WalletInfo,
  waitFor,
} from './harness/chain';
import { call, type NodeProcess, rpc, startNode } from './harness/node-process';

const PY_DIR = join(import.meta.dirname, '..', 'py');
const PYTHON = process.env.PYTHON ?? 'python3';

function pythonVersionOk(): boolean {
  const probe = spawnSync(PYTHON, ['-c', 'import sys; print(sys.version_info >= (3, 11))'], {
    encoding: 'utf8',
  });
  return probe.status === 0 && probe.stdout.trim() === 'True';
}

const hasPython = pythonVersionOk();
if (!hasPython) {
  console.warn(
    `\n!!! SKIPPING the Python wallet test: no ${PYTHON} >= 3.11 on this machine.\n` +
      '!!! Install python3 (apt-get install -y python3) or set PYTHON to run it.\n',
  );
}

interface PyRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a script of tools/e2e/py; keys go in the environment, never on the command line. */
function runPython(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<PyRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      PYTHON,
      args,
      {
        cwd: PY_DIR,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
        timeout: 50_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && code === -1) reject(error);
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** wallet_cli.py: its JSON output, or a failure that shows what Python said. */
async function wallet<T = WalletRun>(
  args: string[],
  options: { key?: string; mineKey?: string; input?: string; allowRefused?: boolean } = {},
): Promise<T> {
  const env: Record<string, string> = {};
  if (options.key) env.CHAIN_WALLET_KEY = options.key;
  if (options.mineKey) env.CHAIN_MINE_KEY = options.mineKey;
  const run = await runPython(['wallet_cli.py', ...args], { env, input: options.input });
  const refused = run.code === 3 && options.allowRefused;
  if (run.code !== 0 && !refused) {
    throw new Error(`wallet_cli.py ${args[0]} exited ${run.code}: ${run.stdout}${run.stderr}`);
  }
  return JSON.parse(run.stdout) as T;
}

interface PyKey {
  private: string;
  public: string;
  enc: string;
  address: string;
}

interface WalletRun {
  wallet: string;
  genesis: string;
  rawoperation: string;
  operations: {
    ophash: string;
    digest: string;
    reply: OperationObject & { valid?: false; errors?: string };
  }[];
  token?: string;
  code?: string;
}

interface SignedMessage {
  wallet: string;
  msg: string;
  enc: string;
  sig: string;
  version: number;
}

let node: NodeProcess;
let dev: string;
let genesis: string;
let actPrice: bigint;

async function fund(address: string, coins: string): Promise<void> {
  const op = await call<OperationObject>(node.url, 'sendTo', {
    sender: dev,
    passphrase: 'dev',
    receiver: address,
    amount: coins,
  });
  await mined(node, op.ophash);
}

async function walletInfo(address: string): Promise<WalletInfo> {
  return call<WalletInfo>(node.url, 'getWalletInfo', { wallet: address });
}

/** A Python key, funded by the dev wallet and activated by Python itself (a zero transfer). */
async function activeKey(coins: string): Promise<PyKey> {
  const key = await wallet<PyKey>(['keygen']);
  await fund(key.address, coins);
  const run = await wallet(['send', '--url', node.url, '--to', '0', '--amount', '0'], {
    key: key.private,
  });
  await mined(node, run.operations.at(-1)!.ophash);
  return key;
}

/** The last operation of a wallet run, mined. */
async function minedLast(run: WalletRun): Promise<OperationObject> {
  for (const op of run.operations) expect(op.reply.valid, op.reply.errors).not.toBe(false);
  return mined(node, run.operations.at(-1)!.ophash);
}

describe.skipIf(!hasPython)('a wallet in Python, from docs/wire-format.md alone', () => {
  beforeAll(async () => {
    node = await startNode({ args: ['--block-time', '300'] });
    dev = devWallet(node);
    genesis = (await call<{ genesis: string }>(node.url, 'nodeStatus')).genesis;
    actPrice = BigInt(await call<number>(node.url, 'getActPrice'));
  });

  afterAll(async () => {
    await node?.stop();
  });

  it('reproduces every worked example of the document byte for byte', async () => {
    const run = await runPython(['test_vectors.py']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/\nOK\s*$/);
  });

  it('signs a transfer that the node accepts and mines (its own key, activation first)', async () => {
    const key = await wallet<PyKey>(['keygen']);
    const receiver = (await wallet<PyKey>(['keygen'])).address;
    await fund(key.address, '10');
    expect(await walletInfo(key.address)).toMatchObject({ state: 'inactive wallet' });

    const run = await wallet(
      ['send', '--url', node.url, '--to', receiver, '--amount', '2.5', '--payload', 'c0ffee'],
      { key: key.private },
    );
    // Python read the genesis hash from nodeStatus and numbered both of its operations itself.
    expect(run.genesis).toBe(genesis);
    expect(run.wallet).toBe(key.address);
    const [activation, transfer] = run.operations;
    expect(activation!.reply).toMatchObject({ optype: 5, signer_account: key.address });
    expect(activation!.reply.ophash).toBe(activation!.ophash);
    expect(transfer!.reply).toMatchObject({
      optype: 2,
      n_operation: 2,
      signer_account: key.address,
      amount: ((25n * COIN) / 10n).toString(),
      oprice: actPrice.toString(),
      receivers: [{ account: receiver }],
      senders: [{ account: key.address, payload: 'c0ffee', payload_type: 0 }],
    });
    expect(transfer!.reply.ophash).toBe(transfer!.ophash);

    const onChain = await mined(node, transfer!.ophash);
    expect(onChain.block).toBeGreaterThan(0);
    // The mined ophash is Python's with the block number in front.
    expect(onChain.ophash.slice(8)).toBe(transfer!.ophash.slice(8));
    expect(onChain.ophash.slice(0, 8)).toBe(
      Buffer.from(new Uint32Array([onChain.block]).buffer).toString('hex'),
    );
    const inBlock = await call<OperationObject[]>(node.url, 'getBlockOperations', {
      block: onChain.block,
    });
    expect(inBlock.find((op) => op.ophash === onChain.ophash)).toMatchObject({
      amount: ((25n * COIN) / 10n).toString(),
      receivers: [{ account: receiver }],
      signer_account: key.address,
    });
    expect(await walletInfo(receiver)).toMatchObject({ balance: ((25n * COIN) / 10n).toString() });
    expect(await walletInfo(key.address)).toMatchObject({
      state: 'normal wallet',
      n_operation: 2,
      balance: (10n * COIN - (25n * COIN) / 10n - 2n * actPrice).toString(),
    });

    // Now active: one transfer, to an account number (receiver tag 0), of one base unit.
    const second = await wallet(
      ['send', '--url', node.url, '--to', '0', '--amount', '0.000000000000000001'],
      { key: key.private },
    );
    expect(second.operations).toHaveLength(1);
    const found = await minedLast(second);
    expect(found).toMatchObject({ n_operation: 3, amount: '1', receivers: [{ account: dev }] });
  });

  it('activates an address that is not on chain (signer ffffffff, n_operation 1, fee 0)', async () => {
    const key = await wallet<PyKey>(['keygen']);
    expect(await walletInfo(key.address)).toMatchObject({ account: -1, state: 'unknown wallet' });
    const run = await wallet(['activate', '--url', node.url], { key: key.private });
    expect(run.operations[0]!.ophash.slice(0, 24)).toBe('00000000ffffffff01000000');
    expect(run.operations[0]!.reply).toMatchObject({ optype: 5, oprice: '0' });
    await minedLast(run);
    expect(await walletInfo(key.address)).toMatchObject({ state: 'normal wallet', balance: '0' });
  });

  it('is refused when it signs for another network (the genesis hash is in the signature)', async () => {
    const key = await activeKey('1');
    const run = await wallet(
      ['send', '--url', node.url, '--genesis', '00'.repeat(32), '--to', '0', '--amount', '0.1'],
      { key: key.private, allowRefused: true },
    );
    expect(run.operations[0]!.reply).toEqual({
      valid: false,
      errors: expect.stringMatching(/^SIGNATURE_MISMATCH: /),
    });
  });

  it("builds offline exactly the blob of the node's rawSendTo (RFC 6979), from a dumped key", async () => {
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet: dev,
      passphrase: 'dev',
    });
    const { n_operation } = await walletInfo(dev);
    const raw = await call<{ fee: string; rawoperation: string }>(node.url, 'rawSendTo', {
      senderAccount: 0,
      senderWallet: dev,
      senderNOperation: n_operation,
      passphrase: 'dev',
      receiverAccount: 1,
      amount: '1.25',
      payload: 'beef',
    });
    const built = await wallet<{ rawoperation: string; ophash: string }>(
      [
        'build-transfer',
        '--genesis',
        genesis,
        '--signer',
        '0',
        '--n-operation',
        String(n_operation + 1),
        '--fee',
        raw.fee,
        '--to',
        '1',
        '--amount',
        '1.25',
        '--payload',
        'beef',
      ],
      { key: priv },
    );
    expect(built.rawoperation).toBe(raw.rawoperation);
    const [decoded] = await call<OperationObject[]>(node.url, 'InfoRaw', {
      rawoperation: built.rawoperation,
    });
    expect(decoded!.ophash).toBe(built.ophash);
  });

  it("signs messages the node's verifyMessage accepts", async () => {
    const key = await wallet<PyKey>(['keygen']);
    // ASCII, UTF-8 and a length over 252 bytes (CompactSize fd).
    for (const message of ['hello from Python', 'grüße ✓ 你好', 'x'.repeat(300)]) {
      const signed = await wallet<SignedMessage>(['sign-message', '--message', message], {
        key: key.private,
      });
      expect(signed).toMatchObject({ wallet: key.address, msg: message, enc: key.enc, version: 1 });
      expect(await call(node.url, 'verifyMessage', { data: signed })).toBe(true);
      const changed = { ...signed, msg: `${message}.` };
      expect(await call(node.url, 'verifyMessage', { data: changed })).toBe(false);
    }
  });

  it("verifies the messages of the node's signMessage, with the node's verdict on variants", async () => {
    const stranger = (await wallet<PyKey>(['keygen'])).address;
    for (const message of ['hello from the node', 'grüße ✓ 你好', 'y'.repeat(300)]) {
      const signed = await call<SignedMessage>(node.url, 'signMessage', {
        wallet: dev,
        passphrase: 'dev',
        message,
      });
      const id = Number.parseInt(signed.sig.slice(0, 2), 16);
      const header = (byte: number) => byte.toString(16).padStart(2, '0') + signed.sig.slice(2);
      const variants: SignedMessage[] = [
        signed,
        { ...signed, sig: header(27 + id) }, // Bitcoin's header byte
        { ...signed, sig: header(31 + id) }, // ... with its compressed-key flag
        { ...signed, sig: header(id ^ 1) }, // the other recovery id
        { ...signed, sig: header(35) },
        { ...signed, sig: signed.sig.toUpperCase(), enc: signed.enc.toUpperCase() },
        { ...signed, sig: `0x${signed.sig}` },
        { ...signed, enc: `0x${signed.enc}` },
        { ...signed, msg: `${message}.` },
        { ...signed, wallet: stranger },
      ];
      const python = await wallet<boolean[]>(['verify-message'], {
        input: JSON.stringify(variants),
      });
      // The node answers a malformed object (no recovery id, a 0x prefix) with an error naming
      // the field; the Python wallet just says false.
      const nodes: Array<boolean | 'malformed'> = [];
      for (const data of variants) {
        const reply = await rpc(node.url, 'verifyMessage', { data });
        nodes.push(reply.error === undefined ? (reply.result as boolean) : 'malformed');
      }
      expect(nodes).toEqual([
        true,
        true,
        true,
        false,
        'malformed',
        true,
        'malformed',
        'malformed',
        false,
        false,
      ]);
      expect(python).toEqual(nodes.map((verdict) => verdict === true));
    }
  });

  it('creates, sends and administers a token with its own operations', async () => {
    const owner = await activeKey('5');
    const holder = (await wallet<PyKey>(['keygen'])).address;
    const created = await wallet(
      [
        'create-token',
        '--url',
        node.url,
        '--name',
        'Python token',
        '--symbol',
        'PYT',
        '--summary',
        'signed by a wallet in Python',
        '--total',
        '1000',
        '--decimal',
        '2',
        '--advanced',
      ],
      { key: owner.private },
    );
    // The token's address was known before the node said it.
    expect(created.operations[0]!.reply).toMatchObject({ optype: 6, token: created.token });
    await minedLast(created);
    const token = created.token!;
    expect(await call(node.url, 'infoToken', { wallet: token })).toMatchObject({
      name: "'Python token'",
      symbol: "'PYT'",
      decimal: 2,
      advanced: true,
      issuer: owner.address,
      totalAmount: '1000.00',
    });

    await minedLast(
      await wallet(
        [
          'send-token',
          '--url',
          node.url,
          '--token',
          token,
          '--to',
          holder,
          '--amount',
          '12.5',
          '--decimal',
          '2',
          '--payload',
          '01',
        ],
        { key: owner.private },
      ),
    );
    const minted = await wallet(
      [
        'admin-token',
        '--url',
        node.url,
        '--token',
        token,
        '--method',
        'mintWalletVolume',
        '--to',
        holder,
        '--amount',
        '1',
        '--decimal',
        '2',
      ],
      { key: owner.private },
    );
    expect(minted.operations[0]!.reply).toMatchObject({ optype: 7, subtype: 5 });
    await minedLast(minted);
    const lock = await wallet(
      [
        'admin-token',
        '--url',
        node.url,
        '--token',
        token,
        '--method',
        'lockWalletVolume',
        '--to',
        holder,
        '--amount',
        '3',
        '--decimal',
        '2',
        '--lock-blocks',
        '0',
      ],
      { key: owner.private },
    );
    await minedLast(lock);
    const holders = await call<{
      holder: { wallet: string; balance: string; volumeLock: string }[];
    }>(node.url, 'holderToken', { wallet: token });
    expect(holders.holder.find((entry) => entry.wallet === holder)).toMatchObject({
      balance: '1350',
      volumeLock: '300',
    });
  });

  it('takes part in the node procedure: every step, TOP to BOTTOM, signed in Python', async () => {
    const [top, middle, bottom] = [
      await activeKey('200'),
      await activeKey('50'),
      await activeKey('5'),
    ];
    // The mine wallet's key must be where blocks are made: the node's key store.
    const { wallet: mine } = await call<{ wallet: string }>(node.url, 'newWallet', {
      passphrase: 'mp',
    });
    const { priv: mineKey } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet: mine,
      passphrase: 'mp',
    });
    await fund(mine, '1');
    await call(node.url, 'activeWallet', { wallet: mine, private: mineKey });
    await waitFor(
      'the mine wallet active',
      async () => (await walletInfo(mine)).state === 'normal wallet',
    );

    const step = async (key: PyKey, name: string, fields: Record<string, unknown>) => {
      const run = await wallet(
        ['participate', '--url', node.url, '--step', name, '--fields', JSON.stringify(fields)],
        { key: key.private, mineKey: name === 'blockchainStart' ? mineKey : undefined },
      );
      return { run, op: await minedLast(run) };
    };
    const hw = { CPU: '{"cores":2}', RAM: '2 GB', GPU: '', DISK: 'ünï' };
    const first = await step(top, 'nodeStep1', {
      stake: '100',
      miner: top.address,
      penalty: 10,
      extension: false,
    });
    // Python computed the node code before the node wrote it in optxt.
    const code = first.run.code!;
    expect(first.op.optxt.endsWith(code)).toBe(true);
    await step(top, 'nodeStep2', { code, ...hw });
    await step(middle, 'nodeStep3_1', {
      code,
      stake: '10',
      miner: middle.address,
      confirmer: top.address,
      extension: true,
    });
    await step(top, 'nodeStep3_2', { code, target: middle.address, select: true });
    await step(middle, 'nodeStep4_1', { code, confirmer: top.address, ...hw });
    await step(top, 'nodeStep4_2', { code, target: middle.address, select: true });
    await step(bottom, 'nodeStep5_1', {
      code,
      stake: '1',
      miner: bottom.address,
      main: top.address,
      confirmer: middle.address,
      extension: false,
    });
    await step(middle, 'nodeStep5_2', {
      code,
      main: top.address,
      target: bottom.address,
      select: true,
    });
    expect(
      await call(node.url, 'nodeStepBTList', { code, main: top.address, wallet: middle.address }),
    ).toEqual([
      expect.objectContaining({
        wallet: bottom.address,
        amount: COIN.toString(),
        state: 'Participating.',
      }),
    ]);
    const start = await step(top, 'blockchainStart', {
      code,
      mine,
      share: middle.address,
      nodes: '127.0.0.1;10.0.0.2',
    });
    expect(start.op).toMatchObject({ optype: 19, subtype: 1 });
    // Signed offline, blockchainStart does not load the mine wallet's key into the node (the RPC
    // method, given minepass, does): until it is unlocked there, the chain stops at the new
    // producer's turn (two producers: one may not sign two blocks in a row). The node says so.
    await waitFor('the warning that the new producer has no key loaded', async () =>
      new RegExp(`${mine}[^\\n]* key is not loaded`).test(node.stdout() + node.stderr()),
    );
    expect(await call(node.url, 'unlockWallet', { wallet: mine, passphrase: 'mp' })).toBe(true);
    expect(await call(node.url, 'getNodePart', { wallet: top.address })).toMatchObject({
      result: { state: 'MN', code },
    });
    const cancel = await step(bottom, 'nodeCancel', { code });
    expect(cancel.op).toMatchObject({ optype: 19, subtype: 2 });
  });
});
