import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bigintToBytesBEPadded,
  bytesToBigintBE,
  bytesToHex,
  ChainError,
  getPublicKey,
  hexToBytes,
  pureHashes,
  pureSecp256k1,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import {
  type Chain,
  createChain,
  createDevGenesis,
  createRegistry,
  DEV_PRIVATE_KEY,
  decodeOperation,
  genesisHash,
  operationSigningHash,
} from '@chain/ledger';
import { registerTiers } from '@chain/tiers';
import { registerTokens } from '@chain/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachSignature,
  encodeRaw,
  NEW_ACCOUNT,
  nodeCode,
  OPERATION_KINDS,
  type OperationInput,
  prepareOperation,
  signMineConsent,
  signOperation,
  signOperations,
} from './index';

const genesis = createDevGenesis();
const GENESIS = bytesToHex(genesisHash(genesis));
const key = (name: string) => sha256(utf8ToBytes(`offline test ${name}`));
const address = (name: string) => addressFromPublicKey('CH', getPublicKey(key(name)));
const hash = (name: string) => hexToBytes(address(name).slice(2, 42));
const CODE = '0123456789abcdef';
const HARDWARE = { CPU: '{"cores":8}', RAM: '{"total":1}', GPU: 'none', DISK: 'ssd' };
const CONSENT = signMineConsent(GENESIS, CODE, key('mine'));

/**
 * One input per operation type, with the body the node's own signer is given for the same operation
 * (what the RPC handlers of apps/node build): both must give the same bytes.
 */
const CASES: Array<{ input: OperationInput; body: unknown; subtype?: number }> = [
  {
    input: {
      type: 'transfer',
      receiver: address('bob'),
      amount: 15n * 10n ** 17n,
      payload: '6869',
    },
    body: {
      receiver: { hash160: hash('bob') },
      amount: 15n * 10n ** 17n,
      payloadType: 0,
      payload: utf8ToBytes('hi'),
    },
  },
  {
    input: { type: 'transfer', receiver: 3, amount: 0n },
    body: { receiver: { account: 3 }, amount: 0n, payloadType: 0, payload: new Uint8Array(0) },
  },
  {
    input: { type: 'activation' },
    body: { publicKey: getPublicKey(key('alice')) },
  },
  {
    input: {
      type: 'createToken',
      name: 'My token',
      symbol: 'MTK',
      summary: 'test',
      decimal: 4,
      supply: 10n ** 8n,
      advanced: true,
    },
    body: {
      advanced: true,
      decimal: 4,
      supply: 10n ** 8n,
      name: 'My token',
      symbol: 'MTK',
      summary: 'test',
    },
  },
  {
    input: {
      type: 'sendToken',
      token: address('token'),
      receiver: address('bob'),
      amount: 25n,
      payload: new Uint8Array([1, 2]),
    },
    body: {
      token: hash('token'),
      receiver: hash('bob'),
      amount: 25n,
      payloadType: 0,
      payload: new Uint8Array([1, 2]),
    },
  },
  {
    input: {
      type: 'adminToken',
      method: 'lockWalletVolume',
      token: address('token'),
      receiver: address('bob'),
      amount: 7n,
      lockBlocks: 9,
    },
    body: { token: hash('token'), receiver: hash('bob'), amount: 7n, lockBlocks: 9 },
    subtype: 3,
  },
  {
    input: {
      type: 'adminToken',
      method: 'transferEnabled',
      token: address('token'),
      select: false,
    },
    body: { token: hash('token'), select: false },
    subtype: 1,
  },
  {
    input: {
      type: 'nodeStep1',
      amount: 100n * 10n ** 18n,
      miner: address('miner'),
      penalty: 5,
      extension: true,
    },
    body: { stake: 100n * 10n ** 18n, miner: hash('miner'), penalty: 5, extension: true },
  },
  {
    input: { type: 'nodeStep2', code: CODE, hardware: HARDWARE },
    body: { code: CODE, hardware: HARDWARE },
  },
  {
    input: {
      type: 'nodeStep3_1',
      code: CODE.toUpperCase(),
      amount: 10n,
      miner: address('miner'),
      confirmer: address('top'),
    },
    body: {
      code: CODE,
      stake: 10n,
      miner: hash('miner'),
      confirmer: hash('top'),
      extension: false,
    },
  },
  {
    input: { type: 'nodeStep3_2', code: CODE, target: address('middle'), select: true },
    body: { code: CODE, target: hash('middle'), select: true },
  },
  {
    input: { type: 'nodeStep4_1', code: CODE, confirmer: address('top'), hardware: HARDWARE },
    body: { code: CODE, confirmer: hash('top'), hardware: HARDWARE },
  },
  {
    input: { type: 'nodeStep4_2', code: CODE, target: address('middle'), select: false },
    body: { code: CODE, target: hash('middle'), select: false },
  },
  {
    input: {
      type: 'nodeStep5_1',
      code: CODE,
      amount: 1n,
      miner: address('miner'),
      main: address('top'),
      confirmer: address('middle'),
    },
    body: {
      code: CODE,
      stake: 1n,
      miner: hash('miner'),
      main: hash('top'),
      confirmer: hash('middle'),
      extension: false,
    },
  },
  {
    input: {
      type: 'nodeStep5_2',
      code: CODE,
      main: address('top'),
      target: address('bottom'),
      select: true,
    },
    body: { code: CODE, main: hash('top'), target: hash('bottom'), select: true },
    subtype: 0,
  },
  {
    input: {
      type: 'blockchainStart',
      code: CODE,
      mine: address('mine'),
      share: address('share'),
      nodes: '10.0.0.1;10.0.0.2',
      mineConsent: CONSENT,
    },
    body: {
      code: CODE,
      mine: hash('mine'),
      share: hash('share'),
      nodes: '10.0.0.1;10.0.0.2',
      mineConsent: hexToBytes(CONSENT),
    },
    subtype: 1,
  },
  { input: { type: 'nodeCancel', code: CODE }, body: { code: CODE }, subtype: 2 },
];

let dir: string;
let chain: Chain;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'offline-test-'));
  const registry = createRegistry();
  registerTokens(registry);
  registerTiers(registry);
  // Never opened: only its signer (buildSignedOperation) and registry are used.
  chain = createChain({ dataDir: dir, genesis, registry });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('signOperation', () => {
  it('covers every operation type', () => {
    expect(new Set(CASES.map((c) => c.input.type))).toEqual(new Set(OPERATION_KINDS));
  });

  it.each(CASES.map((c) => [`${c.input.type}${c.subtype ? `/${c.subtype}` : ''}`, c] as const))(
    "%s: the same bytes as the node's own signer, decoded by the node's registry",
    (_name, { input, body, subtype }) => {
      const signer = input.type === 'activation' ? key('alice') : key('signer');
      const context = {
        genesis: GENESIS,
        prefix: 'CH',
        account: 7,
        nOperation: 3,
        fee: 10n ** 14n,
      };
      const signed = signOperation(input, context, signer);
      const expected = chain.buildSignedOperation({
        optype: signed.optype,
        subtype: subtype ?? 0,
        signerAccount: 7,
        nOperation: 3,
        fee: 10n ** 14n,
        privateKey: signer,
        body,
      });
      expect(signed.hex).toBe(bytesToHex(expected));
      expect(signed.subtype).toBe(subtype ?? 0);

      const decoded = decodeOperation(signed.bytes, chain.registry, pureHashes);
      expect(decoded).toMatchObject({ signer: 7, nOperation: 3, fee: 10n ** 14n });
      expect(bytesToHex(decoded.digest)).toBe(signed.digest);
      expect(signed.ophash).toBe(`00000000${'07000000'}${'03000000'}${signed.digest}`);
      const signingHash = operationSigningHash(
        chain.genesisHash,
        signed.bytes.subarray(0, -64),
        pureHashes,
      );
      expect(pureSecp256k1.verify(decoded.signature, signingHash, getPublicKey(signer))).toBe(true);
    },
  );

  it('reproduces the worked example of docs/wire-format.md (dev wallet, account 0)', () => {
    const one = new Uint8Array(32);
    one[31] = 1;
    const receiver = addressFromPublicKey('CH', getPublicKey(one));
    const signed = signOperation(
      { type: 'transfer', receiver, amount: 15n * 10n ** 17n, payload: '6869' },
      { genesis: GENESIS, prefix: 'CH', account: 0, nOperation: 1, fee: 10n ** 14n },
      DEV_PRIVATE_KEY,
    );
    expect(GENESIS).toBe('2b45a8350a5469743e872bdfcf0935f9cf08d6e919f1f68ceff4ce7245ecf1eb');
    expect(encodeRaw([signed])).toBe(
      '0100000002000000000001000000065af3107a40000001751e76e8199196d454941c45d1b3a323f1433bd60814d1120d7b160000000200686914c3af4e1f70b7aff9439a27591d90a5f8a4353a5c9843bf60beee85657ee0315b8e485fa3b067feeeb0eca8a86a3b53e87d435561f54791486148c690c3b672',
    );
    expect(signed.ophash).toBe('000000000000000001000000cbfae1717b11e4c7ae2235b8d92d2ac0994ca45c');
  });

  it('tells the node code of nodeStep1 and the token address of createToken', () => {
    const context = { genesis: GENESIS, prefix: 'CH', account: 12, nOperation: 4, fee: 0n };
    const join = signOperation(
      { type: 'nodeStep1', amount: 1n, miner: address('miner') },
      context,
      key('signer'),
    );
    expect(join.code).toBe(nodeCode(12, 4));
    expect(join.code).toMatch(/^[0-9a-f]{16}$/);
    const token = signOperation(
      { type: 'createToken', name: 'n', symbol: 's', summary: 'x', decimal: 0, supply: 1n },
      context,
      key('signer'),
    );
    expect(token.token).toMatch(/^CH[0-9a-f]{46}$/);
    const unnamed = signOperation(
      { type: 'createToken', name: 'n', symbol: 's', summary: 'x', decimal: 0, supply: 1n },
      { ...context, prefix: undefined },
      key('signer'),
    );
    expect(unnamed.token).toBeUndefined();
  });

  it('signs a new address activation as NEW_ACCOUNT with n_operation 1', () => {
    const signed = signOperation(
      { type: 'activation' },
      { genesis: GENESIS, account: NEW_ACCOUNT, nOperation: 1, fee: 0n },
      key('alice'),
    );
    expect(signed.hex.slice(0, 12)).toBe('0500ffffffff');
    expect(signed.ophash.slice(8, 16)).toBe('ffffffff');
  });

  it('numbers a sequence of operations from the context n_operation', () => {
    const signed = signOperations(
      [
        { type: 'transfer', receiver: 1, amount: 1n },
        { type: 'transfer', receiver: 1, amount: 2n },
      ],
      { genesis: GENESIS, account: 4, nOperation: 9, fee: 0n },
      key('signer'),
    );
    expect(signed.map((op) => op.nOperation)).toEqual([9, 10]);
    const raw = encodeRaw(signed);
    expect(raw.slice(0, 8)).toBe('02000000');
    expect(raw).toBe(`02000000${signed[0]!.hex}${signed[1]!.hex}`);
  });
});

describe('prepareOperation and attachSignature (an external signer)', () => {
  const context = { genesis: GENESIS, account: 2, nOperation: 1, fee: 5n };
  const input: OperationInput = { type: 'transfer', receiver: 0, amount: 10n };

  it('gives the bytes and hash to sign; the signature made elsewhere completes the operation', () => {
    const prepared = prepareOperation(input, context);
    expect(prepared.signingHash).toEqual(
      sha256(
        new Uint8Array([...utf8ToBytes('chain-op'), ...hexToBytes(GENESIS), ...prepared.unsigned]),
      ),
    );
    const signature = pureSecp256k1.sign(prepared.signingHash, key('signer'));
    const signed = attachSignature(prepared, bytesToHex(signature), getPublicKey(key('signer')));
    expect(signed).toEqual(signOperation(input, context, key('signer')));
  });

  it('refuses a high-S signature and one that does not verify, naming the signature', () => {
    const prepared = prepareOperation(input, context);
    const signature = pureSecp256k1.sign(prepared.signingHash, key('signer'));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = signature.slice();
    highS.set(bigintToBytesBEPadded(n - bytesToBigintBE(signature.subarray(32)), 32), 32);
    expect(() => attachSignature(prepared, highS)).toThrow(
      expect.objectContaining({ reason: 'HIGH_S', param: 'signature' }),
    );
    expect(() => attachSignature(prepared, signature, getPublicKey(key('other')))).toThrow(
      expect.objectContaining({ reason: 'SIGNATURE_MISMATCH', param: 'signature' }),
    );
    expect(() => attachSignature(prepared, signature.subarray(1))).toThrow(
      expect.objectContaining({ param: 'signature' }),
    );
  });
});

describe('bad inputs are ChainErrors naming the input', () => {
  const context = { genesis: GENESIS, prefix: 'CH', account: 2, nOperation: 1, fee: 0n };
  const transfer: OperationInput = { type: 'transfer', receiver: address('bob'), amount: 1n };
  const cases: Array<[string, () => unknown, string, string?]> = [
    [
      'a genesis of the wrong length',
      () => signOperation(transfer, { ...context, genesis: GENESIS.slice(2) }, key('s')),
      'genesis',
    ],
    [
      'a genesis that is not hex',
      () => signOperation(transfer, { ...context, genesis: 'zz'.repeat(32) }, key('s')),
      'genesis',
    ],
    [
      'an address of another network',
      () => signOperation(transfer, { ...context, prefix: 'XY' }, key('s')),
      'receiver',
      'WRONG_NETWORK_PREFIX',
    ],
    [
      'a damaged address',
      () =>
        signOperation(
          { ...transfer, receiver: `${address('bob').slice(0, 47)}0` },
          context,
          key('s'),
        ),
      'receiver',
    ],
    [
      'an account out of range',
      () => signOperation(transfer, { ...context, account: -1 }, key('s')),
      'account',
    ],
    [
      'n_operation 0',
      () => signOperation(transfer, { ...context, nOperation: 0 }, key('s')),
      'nOperation',
    ],
    [
      'a fee given as a number',
      () => signOperation(transfer, { ...context, fee: 1 as unknown as bigint }, key('s')),
      'fee',
    ],
    [
      'an amount given as a number',
      () => signOperation({ ...transfer, amount: 1 as unknown as bigint }, context, key('s')),
      'amount',
    ],
    [
      'a transfer signed as NEW_ACCOUNT',
      () => signOperation(transfer, { ...context, account: NEW_ACCOUNT }, key('s')),
      'account',
      'NEW_ACCOUNT_SIGNER',
    ],
    [
      'an unknown type',
      () => signOperation({ type: 'toString' } as unknown as OperationInput, context, key('s')),
      'type',
      'UNKNOWN_OPERATION_TYPE',
    ],
    [
      'a payload over 255 bytes',
      () => signOperation({ ...transfer, payload: new Uint8Array(256) }, context, key('s')),
      'payload',
    ],
    [
      'a bad private key',
      () => signOperation(transfer, context, new Uint8Array(32)),
      'privateKey',
      'INVALID_PRIVATE_KEY',
    ],
    [
      'an adminToken method lacking its receiver',
      () =>
        signOperation(
          { type: 'adminToken', method: 'burnWalletVolume', token: address('t'), amount: 1n },
          context,
          key('s'),
        ),
      'receiver',
      'MISSING_FIELD',
    ],
    [
      'an unknown adminToken method',
      () =>
        signOperation(
          { type: 'adminToken', method: 'steal' as never, token: address('t') },
          context,
          key('s'),
        ),
      'method',
    ],
    [
      'a bad node code',
      () => signOperation({ type: 'nodeCancel', code: 'xyz' }, context, key('s')),
      'code',
      'BAD_CODE',
    ],
    [
      'a select that is not boolean',
      () =>
        signOperation(
          { type: 'nodeStep3_2', code: CODE, target: address('m'), select: 'yes' as never },
          context,
          key('s'),
        ),
      'select',
    ],
    [
      'an H/W check without texts',
      () =>
        signOperation(
          { type: 'nodeStep2', code: CODE, hardware: { CPU: 'x' } as never },
          context,
          key('s'),
        ),
      'RAM',
    ],
    [
      'an activation key that is not the signing key',
      () =>
        signOperation(
          { type: 'activation', publicKey: getPublicKey(key('other')) },
          context,
          key('s'),
        ),
      'publicKey',
      'KEY_MISMATCH',
    ],
    ['an empty raw blob', () => encodeRaw([]), 'operations'],
  ];

  it.each(cases)('%s', (_name, run, param, reason) => {
    let error: unknown;
    try {
      run();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ChainError);
    expect((error as ChainError).param).toBe(param);
    if (reason !== undefined) expect((error as ChainError).reason).toBe(reason);
  });

  it('never puts the private key in an error', () => {
    const bad = `ca022000${'ff'.repeat(32)}`;
    try {
      signOperation(transfer, context, bad);
      expect.unreachable();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('ff'.repeat(32));
    }
  });
});
