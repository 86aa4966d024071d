import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue, isMethodName, METHOD_NAMES, type MethodSpec } from './index.js';

const SPEC_PATH = '/work/shared/SPEC.md';
const here = dirname(fileURLToPath(import.meta.url));

type Kind = 'string' | 'integer' | 'boolean' | 'amount' | 'hex' | 'wallet' | 'object' | 'enum';
type Expected = Record<string, { kind: Kind; optional?: true; default?: unknown; secret?: true }>;

const s = { kind: 'string' } as const;
const w = { kind: 'wallet' } as const;
const a = { kind: 'amount' } as const;
const b = { kind: 'boolean' } as const;
const i = { kind: 'integer' } as const;
const pass = { kind: 'string', secret: true } as const;
const payload = { kind: 'hex', optional: true } as const;
const ext = { kind: 'boolean', optional: true, default: false } as const;
const historyPage = {
  max: { kind: 'integer', optional: true, default: 100 },
  cursor: { kind: 'string', optional: true },
  fromBlock: { kind: 'integer', optional: true },
} as const;

/**
 * Every method of SPEC.md "Endpoints", transcribed by hand from its tables: param names in the
 * spec's order, with the types the brief maps them to (Integer -> integer, Boolean -> boolean,
 * HexString -> hex, wallet-like String -> wallet, amounts -> amount).
 */
const SPEC_METHODS: Record<string, Expected> = {
  createToken: {
    wallet: w,
    passphrase: pass,
    function: b,
    name: s,
    symbol: s,
    summary: s,
    totalAmount: a,
    decimal: i,
  },
  adminToken: {
    sender: w,
    passphrase: pass,
    token: w,
    method: { kind: 'enum' },
    receiver: { kind: 'wallet', optional: true },
    amount: { kind: 'amount', optional: true },
    select: { kind: 'boolean', optional: true },
  },
  holderToken: { wallet: w },
  infoToken: { wallet: w },
  sendToken: { sender: w, passphrase: pass, receiver: w, amount: a, token: w, payload },
  sendTo: { sender: w, passphrase: pass, receiver: w, amount: a, payload },
  rawSendTo: {
    senderAccount: i,
    senderWallet: w,
    senderNOperation: i,
    passphrase: pass,
    receiverAccount: i,
    amount: a,
    payload,
  },
  InfoRaw: { rawoperation: { kind: 'hex' } },
  excuteRaw: { rawoperation: { kind: 'hex' } },
  privSendTo: { sender: w, priv: { kind: 'hex', secret: true }, receiver: w, amount: a },
  getPendingOperation: {},
  getPendingCount: {},
  getBlockOperations: { block: i },
  getActPrice: {},
  findOperation: { ophash: { kind: 'hex' } },
  decodeOpHash: { ophash: { kind: 'hex' } },
  getNodePart: { wallet: w },
  nodeStep1: {
    wallet: w,
    amount: a,
    passphrase: pass,
    miner: w,
    penalty: { kind: 'integer', optional: true, default: 0 },
    extension: ext,
  },
  nodeStep2: { code: s, wallet: w, passphrase: pass },
  nodeStepMDList: { code: s, wallet: w },
  nodeStep3_1: {
    code: s,
    wallet: w,
    amount: a,
    passphrase: pass,
    miner: w,
    confirmer: w,
    extension: ext,
  },
  nodeStep3_2: { select: b, code: s, confirmer: w, passphrase: pass, target: w },
  nodeStep4_1: { code: s, wallet: w, passphrase: pass, confirmer: w },
  nodeStep4_2: { select: b, code: s, confirmer: w, passphrase: pass, target: w },
  nodeStepBTList: { code: s, main: w, wallet: w },
  nodeStep5_1: {
    code: s,
    wallet: w,
    amount: a,
    passphrase: pass,
    miner: w,
    main: w,
    confirmer: w,
    extension: ext,
  },
  nodeStep5_2: { select: b, code: s, main: w, confirmer: w, passphrase: pass, target: w },
  blockchainStart: {
    code: s,
    wallet: w,
    passphrase: pass,
    mine: w,
    minepass: pass,
    share: w,
    nodes: s,
  },
  nodeCancel: { code: s, wallet: w, passphrase: pass },
  newWallet: { passphrase: pass },
  // `private` is optional since issue 42: the key store's `passphrase` may stand in for it (exactly
  // one of the two; the handler refuses neither and both).
  activeWallet: { wallet: w, private: { kind: 'hex', secret: true, optional: true } },
  getWalletInfo: { wallet: w },
  getKeyStoreInfo: { max: { kind: 'integer', optional: true, default: 100 } },
  getKeyStoreCount: {},
  lockWallet: { wallet: w },
  unlockWallet: { wallet: w, passphrase: pass },
  dumpPrivateKey: { wallet: w, passphrase: pass },
  inputPrivateKey: { private: { kind: 'hex', secret: true }, passphrase: pass },
  signMessage: { wallet: w, passphrase: pass, message: s },
  verifyMessage: { data: { kind: 'object' } },
  walletRefresh: {},
  getBlockCount: {},
  getBlockInfo: { block: i },
  blockSyncing: {},
  addNode: { nodes: s },
  nodeStatus: {},
  getProtocolVersion: {},
  getNodeVersion: {},
  nodeStart: {},
  nodeStop: {},
  nodeSearch: {},
  addBlacklist: { ip: s, why: { kind: 'string', optional: true } },
  getBlacklist: {},
  clearBlacklist: {},
  getConnection: {},
  nodeIPStats: { ip: s },
  rpcCallStats: {},
  nodeUptime: {},
};

/** Methods beyond SPEC.md's endpoints: the OpenRPC description (issue 17). */
const EXTRA_METHODS = ['rpc.discover'];

/**
 * Params beyond SPEC.md (documented in the catalogue), after the spec's own: holderToken's and
 * getKeyStoreInfo's paging and adminToken's time lock. They are not in the spec's rows, so only their kind and order are checked.
 */
const EXTENSIONS: Record<string, Expected> = {
  adminToken: { lockBlocks: { kind: 'integer', optional: true } },
  holderToken: {
    after: { kind: 'wallet', optional: true },
    max: { kind: 'integer', optional: true, default: 100 },
  },
  walletRefresh: { details: { kind: 'boolean', optional: true, default: false } },
  activeWallet: { passphrase: { kind: 'string', optional: true, secret: true } },
  getKeyStoreInfo: { after: { kind: 'wallet', optional: true } },
  // Withdrawals safe to retry (issue 41): the client's reference.
  sendTo: { reference: { kind: 'string', optional: true } },
  sendToken: { reference: { kind: 'string', optional: true } },
};

/** Methods beyond SPEC.md, added by issues (push over WebSocket, issue 16), with their params. */
const BEYOND_SPEC: Record<string, Expected> = {
  subscribe: {
    event: { kind: 'enum' },
    wallet: { kind: 'wallet', optional: true },
    token: { kind: 'wallet', optional: true },
    fromBlock: { kind: 'integer', optional: true },
  },
  unsubscribe: { subscription: s },
  // Reads by address (issue 41).
  getWalletOperations: { wallet: w, ...historyPage },
  getTokenOperations: { token: w, ...historyPage },
  getWalletTokens: { wallet: w },
  getBlockByHash: { hash: { kind: 'hex' } },
  findOperationByNOperation: { wallet: w, n_operation: i },
  // Every key-store wallet at once (issue 41).
  getKeyStoreOperations: {
    fromBlock: i,
    max: { kind: 'integer', optional: true, default: 100 },
    cursor: { kind: 'string', optional: true },
  },
};

/** Rows `| method | params | result |` of the tables under "## Endpoints". */
function specEndpointRows(markdown: string): Map<string, string> {
  const start = markdown.indexOf('## Endpoints');
  const end = markdown.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const line of markdown.slice(start, end).split('\n')) {
    const match = /^\| (\w+) \| (.*) \| .* \|$/.exec(line);
    if (match && match[1] !== 'Method') rows.set(match[1]!, match[2]!);
  }
  return rows;
}

describe('method catalogue', () => {
  it.skipIf(!existsSync(SPEC_PATH))('lists exactly the methods of SPEC.md', () => {
    const rows = specEndpointRows(readFileSync(SPEC_PATH, 'utf8'));
    expect(rows.size).toBe(58);
    expect([...rows.keys()].sort()).toEqual(Object.keys(SPEC_METHODS).sort());
  });

  it.skipIf(!existsSync(SPEC_PATH))(
    'every transcribed param name appears in its SPEC.md row',
    () => {
      const rows = specEndpointRows(readFileSync(SPEC_PATH, 'utf8'));
      for (const [method, params] of Object.entries(SPEC_METHODS)) {
        const row = rows.get(method) ?? '';
        for (const name of Object.keys(params)) {
          expect(new RegExp(`\\b${name}\\b`).test(row), `${method}.${name}`).toBe(true);
        }
      }
    },
  );

  it("holds every method of the spec and nothing else beyond the issues' methods", () => {
    expect([...METHOD_NAMES].sort()).toEqual(
      [...Object.keys(SPEC_METHODS), ...Object.keys(BEYOND_SPEC), ...EXTRA_METHODS].sort(),
    );
    expect(Object.keys(catalogue['rpc.discover'].params)).toEqual([]);
  });

  it('says of every method whether it only reads; nothing that takes a secret does', () => {
    for (const name of METHOD_NAMES) {
      const spec: MethodSpec = catalogue[name];
      expect(typeof spec.readOnly, name).toBe('boolean');
      const secret = Object.values(spec.params).some((param) => param.isSecret);
      if (secret || spec.keyMaterial) expect(spec.readOnly, name).toBe(false);
    }
    const reads = METHOD_NAMES.filter((name) => catalogue[name].readOnly);
    expect(reads).toContain('getBlockCount');
    expect(reads).toContain('rpc.discover');
    for (const write of ['sendTo', 'excuteRaw', 'nodeStart', 'addBlacklist', 'walletRefresh']) {
      expect(reads).not.toContain(write);
    }
  });

  it.each(
    Object.entries({ ...SPEC_METHODS, ...BEYOND_SPEC }).map(([method, params]) => [
      method,
      { ...params, ...EXTENSIONS[method] },
    ]),
  )('%s has the spec params (then any extensions), in order', (method, expected) => {
    const spec: MethodSpec = catalogue[method as keyof typeof catalogue];
    expect(spec.name).toBe(method);
    expect(Object.keys(spec.params)).toEqual(Object.keys(expected));
    for (const [name, want] of Object.entries(expected)) {
      const param = spec.params[name]!;
      expect(param.kind, `${method}.${name}`).toBe(want.kind);
      expect(param.isOptional, `${method}.${name}`).toBe(want.optional === true);
      expect(param.defaultValue, `${method}.${name}`).toBe(want.default);
      expect(param.isSecret, `${method}.${name}`).toBe(want.secret === true);
    }
  });

  it('marks exactly the raw-key methods as key material', () => {
    const keyMethods = METHOD_NAMES.filter((name) => 'keyMaterial' in catalogue[name]);
    expect(keyMethods.sort()).toEqual(
      ['activeWallet', 'dumpPrivateKey', 'inputPrivateKey', 'privSendTo'].sort(),
    );
  });

  it('carries the spec quirks: wallet beside method, repeated mine, nested getNodePart', () => {
    const beside = METHOD_NAMES.filter((name) => 'paramsBesideMethod' in catalogue[name]);
    expect(beside.sort()).toEqual(['holderToken', 'infoToken']);
    expect(catalogue.holderToken.paramsBesideMethod).toEqual(['wallet']);
    expect(catalogue.blockchainStart.duplicateKeys).toEqual({ mine: ['mine', 'share'] });
    const nested = METHOD_NAMES.filter((name) => 'nestedResult' in catalogue[name]);
    expect(nested).toEqual(['getNodePart']);
  });

  it('keeps the spec limits', () => {
    expect(catalogue.createToken.params.decimal.bounds).toEqual({ min: 0, max: 18 });
    expect(catalogue.nodeStep1.params.penalty.bounds).toEqual({ min: 0, max: 100 });
    expect(catalogue.getKeyStoreInfo.params.max.bounds).toEqual({ min: 1 });
    expect(catalogue.getBlockInfo.params.block.bounds).toEqual({ min: 0 });
    expect(catalogue.sendTo.params.payload.bounds).toEqual({ maxBytes: 255 });
    expect(catalogue.findOperation.params.ophash.bounds).toEqual({ exactBytes: 32 });
    expect(catalogue.adminToken.params.method.bounds.values).toEqual([
      'transferEnabled',
      'transferWalletEnabled',
      'lockWalletVolume',
      'burnWalletVolume',
      'mintWalletVolume',
      'ownershipWallet',
    ]);
  });

  it('groups each method by the file it lives in', () => {
    const groups = new Map<string, string>([
      ['token', 'token'],
      ['operations', 'operations'],
      ['participation', 'participation'],
      ['wallet', 'wallet'],
      ['block', 'block'],
      ['network', 'network'],
      ['stats', 'stats'],
      ['push', 'push'],
    ]);
    for (const [group, file] of groups) {
      const source = readFileSync(join(here, `${file}.ts`), 'utf8');
      const names = METHOD_NAMES.filter((name) => catalogue[name].group === group);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(source).toContain(`name: '${name}'`);
    }
  });

  it('is browser-safe: catalogue sources import nothing but each other', () => {
    const files = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    for (const file of files) {
      const source = readFileSync(join(here, file), 'utf8');
      for (const match of source.matchAll(/from '([^']+)'/g)) {
        expect(match[1], file).toMatch(/^\.\/[\w-]+\.js$/);
      }
    }
  });

  it('isMethodName is exact and ignores inherited names', () => {
    expect(isMethodName('getBlockCount')).toBe(true);
    expect(isMethodName('getblockcount')).toBe(false);
    expect(isMethodName('constructor')).toBe(false);
    expect(isMethodName('__proto__')).toBe(false);
  });
});
