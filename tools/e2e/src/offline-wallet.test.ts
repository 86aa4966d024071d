/**
 * A third-party wallet, written from docs/wire-format.md alone: its own byte layout (below), its own
 * secp256k1 (ethers' SigningKey) and hashes (node:crypto), none of chain-node's code. It reads the
 * genesis hash from nodeStatus, builds and signs operations, submits them with excuteRaw over plain
 * HTTP and sees them mined; it also checks that the worked examples of the document are what it
 * builds, and that a fresh node accepts the example transfer byte for byte.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Signature, SigningKey } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDatadir, type NodeProcess, startNode } from './harness/node-process';

const DOC = join(import.meta.dirname, '..', '..', '..', 'docs', 'wire-format.md');

// ---- The wallet ------------------------------------------------------------------------------

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const ascii = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const sha256 = (data: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('sha256').update(data).digest());
const hash160 = (data: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('ripemd160').update(sha256(data)).digest());

function u16le(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff, value >>> 8);
}

function u32le(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

/** `u8 length || big-endian minimal bytes`; 0 is `00`. */
function amount(value: bigint): Uint8Array {
  if (value === 0n) return Uint8Array.of(0);
  let digits = value.toString(16);
  if (digits.length % 2 === 1) digits = `0${digits}`;
  const bytes = fromHex(digits);
  return concat(Uint8Array.of(bytes.length), bytes);
}

function var16(bytes: Uint8Array): Uint8Array {
  return concat(u16le(bytes.length), bytes);
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

class Wallet {
  private readonly key: SigningKey;
  readonly publicKey: Uint8Array;

  constructor(privateKey: Uint8Array) {
    this.key = new SigningKey(privateKey);
    this.publicKey = fromHex(this.key.compressedPublicKey.slice(2));
  }

  address(prefix: string): string {
    const hash = hash160(this.publicKey);
    return prefix + hex(hash) + hex(sha256(concat(ascii(prefix), hash)).subarray(0, 3));
  }

  /** 64 bytes r || s, low-S. */
  sign(hash32: Uint8Array): Uint8Array {
    const signature = this.key.sign(hash32);
    let s = BigInt(signature.s);
    if (s > N / 2n) s = N - s;
    return concat(fromHex(signature.r.slice(2)), fromHex(s.toString(16).padStart(64, '0')));
  }

  /** `unsigned || signature`, the signature over SHA256("chain-op" || genesis || unsigned). */
  operation(genesis: Uint8Array, header: Header, body: Uint8Array): Operation {
    const unsigned = concat(
      u16le(header.optype),
      u32le(header.signer),
      u32le(header.nOperation),
      amount(header.fee),
      Uint8Array.of(header.subtype ?? 0),
      body,
    );
    const signingHash = sha256(concat(ascii('chain-op'), genesis, unsigned));
    const signed = concat(unsigned, this.sign(signingHash));
    const digest = hash160(signed);
    return {
      unsigned,
      signingHash,
      signed,
      digest,
      ophash: hex(concat(u32le(0), u32le(header.signer), u32le(header.nOperation), digest)),
    };
  }

  /** Bitcoin's message signature with this document's prefix; `header` 0, 27 or 31 plus the id. */
  signMessage(message: string, header: number): string {
    const body = ascii(message);
    const hash = sha256(
      sha256(concat(ascii('Chain Signed Message:\n'), Uint8Array.of(body.length), body)),
    );
    const signature = Signature.from(this.key.sign(hash));
    return hex(
      concat(
        Uint8Array.of(header + signature.yParity),
        fromHex(signature.r.slice(2)),
        fromHex(signature.s.slice(2)),
      ),
    );
  }

  /** The `enc` form: ca02 || 2000 || X || 2000 || Y. */
  encodedPublicKey(): string {
    const point = this.key.publicKey.slice(4); // 0x04 || X || Y
    return `ca022000${point.slice(0, 64)}2000${point.slice(64)}`;
  }
}

interface Header {
  optype: number;
  subtype?: number;
  signer: number;
  nOperation: number;
  fee: bigint;
}

interface Operation {
  unsigned: Uint8Array;
  signingHash: Uint8Array;
  signed: Uint8Array;
  digest: Uint8Array;
  ophash: string;
}

const raw = (...operations: Operation[]): string =>
  hex(concat(u32le(operations.length), ...operations.map((op) => op.signed)));

/** Transfer body: receiver tag 0 (account) or 1 (hash), amount, payload_type, payload. */
function transferBody(receiver: number | Uint8Array, value: bigint, payload = new Uint8Array(0)) {
  const to =
    typeof receiver === 'number'
      ? concat(Uint8Array.of(0), u32le(receiver))
      : concat(Uint8Array.of(1), receiver);
  return concat(to, amount(value), Uint8Array.of(0), var16(payload));
}

// ---- JSON-RPC over plain HTTP -----------------------------------------------------------------

async function jsonRpc<T>(url: string, method: string, params: object = {}): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
  });
  const reply = (await response.json()) as { result?: T; error?: { message: string } };
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

interface MinedOperation {
  block: number;
  ophash: string;
  optype: number;
  amount: string;
}

async function minedOperation(url: string, ophash: string): Promise<MinedOperation> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [found] = await jsonRpc<MinedOperation[]>(url, 'findOperation', { ophash });
    if (found && found.block > 0) return found;
    if (Date.now() > deadline) throw new Error(`operation ${ophash} was not mined`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A mined operation is listed in its block (same operation: ophash without the block part). */
async function expectInBlock(url: string, mined: MinedOperation): Promise<void> {
  const operations = await jsonRpc<MinedOperation[]>(url, 'getBlockOperations', {
    block: mined.block,
  });
  expect(operations.map((op) => op.ophash)).toContain(mined.ophash);
}

/** The `label   value` lines of the text blocks of one section of the document. */
function exampleValues(doc: string, heading: string): Map<string, string> {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/wire-format.md has no section '${heading}'`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const values = new Map<string, string>();
  for (const [, block] of section.matchAll(/```text\n([\s\S]*?)```/g)) {
    for (const line of block!.split('\n')) {
      const match = /^(\S.*?)\s{2,}([0-9A-Za-z]+)$/.exec(line.trim());
      if (match) values.set(match[1]!, match[2]!);
    }
  }
  return values;
}

// ---- The tests --------------------------------------------------------------------------------

let node: NodeProcess;
let doc: string;

beforeAll(async () => {
  doc = await readFile(DOC, 'utf8');
  node = await startNode({ datadir: await makeDatadir(), args: ['--block-time', '0'] });
});

afterAll(async () => {
  await node?.stop();
});

describe('a third-party wallet written from docs/wire-format.md', () => {
  it("builds the document's worked transfer byte for byte, and a fresh node mines that example", async () => {
    const keys = exampleValues(doc, 'Keys');
    const example = exampleValues(doc, 'Worked example: a transfer');
    const dev = new Wallet(fromHex(keys.get('private key')!));
    expect(hex(dev.publicKey)).toBe(keys.get('public key'));
    expect(dev.encodedPublicKey()).toBe(keys.get('encoded public key'));

    const status = await jsonRpc<{ genesis: string }>(node.url, 'nodeStatus');
    expect(status.genesis).toBe(example.get('genesis hash'));
    const genesis = fromHex(status.genesis);
    const receiver = hash160(new Wallet(fromHex(`${'00'.repeat(31)}01`)).publicKey);
    const op = dev.operation(
      genesis,
      { optype: 2, signer: 0, nOperation: 1, fee: 10n ** 14n },
      transferBody(receiver, 15n * 10n ** 17n, ascii('hi')),
    );
    expect(hex(op.unsigned)).toBe(example.get('unsigned'));
    expect(hex(concat(ascii('chain-op'), genesis, op.unsigned))).toBe(
      example.get('signing message'),
    );
    expect(hex(op.signingHash)).toBe(example.get('signing hash'));
    expect(hex(op.signed)).toBe(example.get('signed operation'));
    expect(raw(op)).toBe(example.get('raw'));
    expect(hex(op.digest)).toBe(example.get('digest'));
    expect(op.ophash).toBe(example.get('ophash'));

    const result = await jsonRpc<{ ophash?: string; valid?: boolean; errors?: string }>(
      node.url,
      'excuteRaw',
      { rawoperation: example.get('raw') },
    );
    expect(result.errors).toBeUndefined();
    expect(result.ophash).toBe(example.get('ophash'));
    const mined = await minedOperation(node.url, example.get('ophash')!);
    expect(mined).toMatchObject({ optype: 2, amount: (15n * 10n ** 17n).toString() });
    await expectInBlock(node.url, mined);
  });

  it("checks the document's address, activation and message examples", async () => {
    const address = exampleValues(doc, 'Addresses');
    const dev = new Wallet(fromHex(exampleValues(doc, 'Keys').get('private key')!));
    expect(dev.address('CH')).toBe(address.get('address'));

    const activation = exampleValues(doc, 'Worked example: activation of a new address');
    const one = new Wallet(fromHex(`${'00'.repeat(31)}01`));
    const genesis = fromHex(exampleValues(doc, 'Worked example: a transfer').get('genesis hash')!);
    const op = one.operation(
      genesis,
      { optype: 5, signer: 0xffffffff, nOperation: 1, fee: 0n },
      one.publicKey,
    );
    expect(hex(op.unsigned)).toBe(activation.get('activation unsigned'));
    expect(hex(op.signed)).toBe(activation.get('activation signed'));

    const message = exampleValues(doc, 'Message signing');
    const signed = JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)![1]!) as Record<string, unknown>;
    expect(dev.signMessage('hello', 0)).toBe(message.get('sig'));
    expect(signed.sig).toBe(message.get('sig'));
    expect(await jsonRpc(node.url, 'verifyMessage', { data: signed })).toBe(true);
  });

  it('reads the genesis from nodeStatus, activates its own key and transfers: the node mines them', async () => {
    const wallet = new Wallet(sha256(ascii('third-party wallet test key')));
    const me = wallet.address('CH');
    const status = await jsonRpc<{ genesis: string; blocks: number }>(node.url, 'nodeStatus');
    expect(status.genesis).toMatch(/^[0-9a-f]{64}$/);
    const search = await jsonRpc<{ genesis: string }>(node.url, 'nodeSearch');
    expect(search.genesis).toBe(status.genesis);
    const genesis = fromHex(status.genesis);
    const fee = BigInt(await jsonRpc<number>(node.url, 'getActPrice'));

    // Coins for the fees, from the node's dev wallet (the only help the wallet takes).
    const banner = /wallet\s+(CH[0-9a-f]{46})/.exec(node.stdout())![1]!;
    const funding = await jsonRpc<{ ophash: string }>(node.url, 'sendTo', {
      sender: banner,
      passphrase: 'dev',
      receiver: me,
      amount: '10',
    });
    await minedOperation(node.url, funding.ophash);
    const before = await jsonRpc<{ account: number; n_operation: number; state: string }>(
      node.url,
      'getWalletInfo',
      { wallet: me },
    );
    expect(before).toMatchObject({ n_operation: 0, state: 'inactive wallet' });

    const activation = wallet.operation(
      genesis,
      { optype: 5, signer: before.account, nOperation: before.n_operation + 1, fee },
      wallet.publicKey,
    );
    const activated = await jsonRpc<{ ophash: string }>(node.url, 'excuteRaw', {
      rawoperation: raw(activation),
    });
    expect(activated.ophash).toBe(activation.ophash);
    await expectInBlock(node.url, await minedOperation(node.url, activation.ophash));

    // Two transfers in one blob: to account 0 (the dev wallet) by number, to a new address by hash.
    const stranger = hash160(new Wallet(sha256(ascii('stranger'))).publicKey);
    const info = await jsonRpc<{ n_operation: number; state: string }>(node.url, 'getWalletInfo', {
      wallet: me,
    });
    expect(info).toMatchObject({ n_operation: 1, state: 'normal wallet' });
    const first = wallet.operation(
      genesis,
      { optype: 2, signer: before.account, nOperation: 2, fee },
      transferBody(0, 10n ** 18n, ascii('from a foreign wallet')),
    );
    const second = wallet.operation(
      genesis,
      { optype: 2, signer: before.account, nOperation: 3, fee },
      transferBody(stranger, 2n * 10n ** 18n),
    );
    const submitted = await jsonRpc<Array<{ ophash: string }>>(node.url, 'excuteRaw', {
      rawoperation: raw(first, second),
    });
    expect(submitted.map((op) => op.ophash)).toEqual([first.ophash, second.ophash]);
    for (const op of [first, second]) {
      await expectInBlock(node.url, await minedOperation(node.url, op.ophash));
    }
    const after = await jsonRpc<{ balance: string; n_operation: number }>(
      node.url,
      'getWalletInfo',
      { wallet: me },
    );
    expect(after.n_operation).toBe(3);
    expect(BigInt(after.balance)).toBe(10n * 10n ** 18n - 3n * 10n ** 18n - 3n * fee);
  });

  it('signs a message that verifyMessage accepts with any recovery byte form', async () => {
    const wallet = new Wallet(sha256(ascii('third-party wallet test key')));
    for (const header of [0, 27, 31]) {
      const data = {
        wallet: wallet.address('CH'),
        msg: 'signed elsewhere',
        enc: wallet.encodedPublicKey(),
        sig: wallet.signMessage('signed elsewhere', header),
        version: 1,
      };
      expect(await jsonRpc(node.url, 'verifyMessage', { data }), `header ${header}`).toBe(true);
      expect(await jsonRpc(node.url, 'verifyMessage', { data: { ...data, msg: 'other' } })).toBe(
        false,
      );
    }
  });
});
