/**
 * A data directory holding a large committed state, built in minutes instead of hours: the real dev
 * genesis (a chain-node started once on the directory and stopped), then synthetic accounts written
 * straight into its chain database in the layout of @chain/ledger's ChainStore, the state checksum
 * adjusted for each, the head block re-signed to commit to the state (resealHead: the state root
 * is a commitment to the whole state), and the node started once more with --verify-state to
 * check the whole of it.
 *
 * The accounts are in no block: the state layer sees them as it would see accounts created by
 * transfers, but a follower syncing from genesis would not have them. Each is numbered after the
 * genesis accounts, with a hash160 derived from its number (fixtureHash160), so that a benchmark
 * picks existing accounts at random without reading the database.
 *
 * Beside the accounts, two tokens made by real createToken operations of the dev wallet (on the
 * genesis node, before it stops): a large one whose holders are the first `holders` synthetic
 * accounts and a small one held by the first SMALL_TOKEN_HOLDERS of them. Their holder entries are
 * written straight into the `spaces` sublevel in @chain/tokens' layout (holderSpace, appended to
 * the token's linked holder list after the dev wallet), the token entries and the dev wallet's
 * holder entry rewritten to match, the state checksum adjusted for each.
 *
 * Fixtures are cached between runs under `root`, keyed by the account count, the holder count and
 * FIXTURE_FORMAT; a run that writes works on a copy (copyFixture).
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressFromHash160, bytesToHex, decodeAddress } from '@chain/crypto';
import {
  accountKey,
  CHAIN_DB_OPTIONS,
  createDevGenesis,
  DEV_PRIVATE_KEY,
  ENTRY_ACCOUNT,
  ENTRY_SPACE,
  encodeAccount,
  META_STATE_CHECKSUM,
  newAccount,
  resealHead,
  StateChecksum,
} from '@chain/ledger';
import { type HolderState, holderSpace, type TokenState, tokenSpace } from '@chain/tokens';
import { createDevTokenFor, DEV_PREFIX } from './dev-chain.js';
import { createNodeProcess } from './node-process.js';

/** Bumped whenever what a fixture holds changes: older cached fixtures are then not used. */
// 5: the operation index in signer order (data-directory layout 4).
export const FIXTURE_FORMAT = 5;
/** Where fixtures are cached by default. */
export const DEFAULT_FIXTURE_ROOT = join(tmpdir(), 'chain-bench-fixtures');
/** Every synthetic account's balance, in base units (any value: nothing sums the balances). */
export const FIXTURE_BALANCE = 1_000_000n;

/** Holders of the small token (synthetic accounts, the first ones). */
export const SMALL_TOKEN_HOLDERS = 100;
/** Each synthetic holder's balance of either token (decimal 0: whole tokens). */
export const FIXTURE_TOKEN_BALANCE = 1_000n;
/** Supply of either token: the dev wallet keeps what the synthetic holders do not hold. */
const TOKEN_SUPPLY = 100_000_000_000n;
/** "No holder" in a holder list's links (NO_HOLDER of packages/tokens/src/state.ts). */
const NO_HOLDER = 0xffffffff;

/** ChainStore's sublevels and keys this module writes (packages/ledger/src/chain/storage/store.ts). */
const SUBLEVEL_ACCOUNTS = 'accounts';
const SUBLEVEL_ADDRESSES = 'addresses';
const SUBLEVEL_META = 'meta';
const SUBLEVEL_SPACES = 'spaces';
/** Accounts per write batch. */
const WRITE_BATCH = 50_000;
const READY_FILE = 'fixture-ready.json';

interface ChainedBatch {
  put(key: Uint8Array, value: Uint8Array): ChainedBatch;
  write(options?: { sync?: boolean }): Promise<void>;
}

interface Sublevel {
  readonly prefix: string;
}

interface Database {
  open(): Promise<void>;
  close(): Promise<void>;
  batch(): ChainedBatch;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  keys(options: { gte: Uint8Array; lt: Uint8Array; reverse: boolean; limit: number }): {
    all(): Promise<Uint8Array[]>;
  };
  sublevel(name: string): Sublevel;
}

type ClassicLevelConstructor = new (
  location: string,
  options: { keyEncoding: 'view'; valueEncoding: 'view' },
) => Database;

/** classic-level loaded the way @chain/ledger loads it (ceilings/leveldb-write.ts does the same). */
function loadClassicLevel(): ClassicLevelConstructor {
  const require = createRequire(import.meta.url);
  const ledgerManifest = require.resolve('@chain/ledger/package.json');
  return (
    createRequire(ledgerManifest)('classic-level') as { ClassicLevel: ClassicLevelConstructor }
  ).ClassicLevel;
}

/** A pseudo-random 20-byte hash of `number` under `domain`: the same in every run. */
export function seededHash160(domain: string, number: number): Uint8Array {
  const seed = new Uint8Array(4);
  new DataView(seed.buffer).setUint32(0, number, false);
  return createHash('sha256').update(domain).update(seed).digest().subarray(0, 20);
}

/** The 20-byte hash of synthetic account `number`, the same in every fixture. */
export function fixtureHash160(number: number): Uint8Array {
  return seededHash160('chain-bench-state-fixture', number);
}

/** The address of synthetic account `number`. */
export function fixtureAddress(number: number): string {
  return addressFromHash160(DEV_PREFIX, fixtureHash160(number));
}

/**
 * A synthetic account as the ledger encodes it: received only (no public key), no operation, no
 * lock, in no block.
 */
export function encodeFixtureAccount(
  number: number,
  hash160: Uint8Array,
  balance: bigint,
): Uint8Array {
  const account = newAccount(number, hash160);
  account.balance = balance;
  return encodeAccount(account);
}

function concat(prefix: Uint8Array, key: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + key.length);
  out.set(prefix, 0);
  out.set(key, prefix.length);
  return out;
}

/** A token of a fixture. */
export interface FixtureToken {
  address: string;
  /** Listed holders: the dev wallet and the synthetic ones. */
  holders: number;
  /** Its synthetic holders are accounts firstHolder .. firstHolder + holders - 2. */
  firstHolder: number;
}

export interface StateFixture {
  /** The cached data directory (do not write to it: copyFixture). */
  dir: string;
  /** The token with `holders` synthetic holders, and the one with SMALL_TOKEN_HOLDERS. */
  largeToken: FixtureToken;
  smallToken: FixtureToken;
  /** Accounts in its state, genesis accounts included. */
  accounts: number;
  /** The first synthetic account: accounts genesisAccounts .. accounts-1 are fixtureAddress(n). */
  firstSynthetic: number;
  /** Bytes of the files of its chain database. */
  chainBytes: number;
  /** Raw bytes of one synthetic account's keys and values (account and address index entry). */
  rawBytesPerAccount: number;
}

interface ReadyRecord {
  largeToken: FixtureToken;
  smallToken: FixtureToken;
  accounts: number;
  firstSynthetic: number;
  rawBytesPerAccount: number;
}

/**
 * Sum of the sizes of the files under `dir`. A live node's directory changes while it is listed (a
 * snapshot's `.partial` file renamed, a LevelDB table compacted away): a file gone counts nothing.
 */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += await fileBytes(join(entry.parentPath, entry.name));
  }
  return total;
}

async function fileBytes(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/**
 * The cached fixture of `accounts` accounts and a token of `holders` holders (at most the synthetic
 * accounts) under `root`, built first when missing. `log` sees the build's progress.
 */
export async function stateFixture(
  accounts: number,
  holders: number,
  log: (message: string) => void,
  root = DEFAULT_FIXTURE_ROOT,
): Promise<StateFixture> {
  const dir = join(root, `v${FIXTURE_FORMAT}-${accounts}-${holders}h`);
  const { ready } = await cachedBuild(dir, READY_FILE, (building) =>
    buildFixture(building, accounts, holders, log),
  );
  return { dir, ...ready, chainBytes: await directoryBytes(join(dir, 'chain')) };
}

/**
 * The record of the fixture cached in `dir` (its `readyFile`), built first when missing: into
 * `<dir>.building-<pid>`, renamed to `dir` once whole, so that an interrupted build is never taken
 * for a fixture. `built` says whether this call built it.
 */
export async function cachedBuild<R>(
  dir: string,
  readyFile: string,
  build: (building: string) => Promise<R>,
): Promise<{ ready: R; built: boolean }> {
  try {
    return { ready: JSON.parse(await readFile(join(dir, readyFile), 'utf8')) as R, built: false };
  } catch {
    // not built yet
  }
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  try {
    const ready = await build(building);
    await writeFile(join(building, readyFile), JSON.stringify(ready));
    await rm(dir, { recursive: true, force: true });
    await rename(building, dir);
    return { ready, built: true };
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}

async function buildFixture(
  dir: string,
  accounts: number,
  holders: number,
  log: (message: string) => void,
): Promise<ReadyRecord> {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
  log(`    fixture of ${accounts.toLocaleString('en-US')} accounts: dev genesis and two tokens`);
  const genesisNode = createNodeProcess({
    datadir: dir,
    args: ['--block-time', '200', '--log-level', 'warn'],
  });
  const tokenAddresses: string[] = [];
  try {
    await genesisNode.start();
    for (const symbol of ['LARGE', 'SMALL']) {
      tokenAddresses.push(
        await createDevTokenFor(
          genesisNode.client,
          { name: `Fixture ${symbol}`, symbol, totalAmount: String(TOKEN_SUPPLY), decimal: 0 },
          [],
          '0',
        ),
      );
    }
  } finally {
    await genesisNode.close();
  }

  const ClassicLevel = loadClassicLevel();
  const db = new ClassicLevel(join(dir, 'chain'), CHAIN_DB_OPTIONS);
  await db.open();
  let firstSynthetic: number;
  let rawBytesPerAccount = 0;
  let largeToken: FixtureToken;
  let smallToken: FixtureToken;
  try {
    const encoder = new TextEncoder();
    const accountsPrefix = encoder.encode(db.sublevel(SUBLEVEL_ACCOUNTS).prefix);
    const addressesPrefix = encoder.encode(db.sublevel(SUBLEVEL_ADDRESSES).prefix);
    const checksumKey = concat(
      encoder.encode(db.sublevel(SUBLEVEL_META).prefix),
      encoder.encode(META_STATE_CHECKSUM),
    );
    // Accounts are numbered from 0 without gaps: the next is the last plus one.
    const last = await db
      .keys({
        gte: accountsPrefix,
        lt: concat(accountsPrefix, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff])),
        reverse: true,
        limit: 1,
      })
      .all();
    firstSynthetic =
      last.length === 0
        ? 0
        : new DataView(last[0]!.buffer, last[0]!.byteOffset + accountsPrefix.length).getUint32(
            0,
            false,
          ) + 1;
    const stored = await db.get(checksumKey);
    if (stored === undefined) throw new Error('the genesis data directory has no state checksum');
    const checksum = StateChecksum.fromBytes(stored);
    if (checksum === undefined) throw new Error('the fixture has no state checksum');
    log(
      `    fixture: ${firstSynthetic} genesis accounts; writing ${(accounts - firstSynthetic).toLocaleString('en-US')} more in batches of ${WRITE_BATCH.toLocaleString('en-US')}`,
    );
    let nextReport = Date.now() + 15_000;
    for (let first = firstSynthetic; first < accounts; first += WRITE_BATCH) {
      const batch = db.batch();
      for (let number = first; number < Math.min(accounts, first + WRITE_BATCH); number++) {
        const hash160 = fixtureHash160(number);
        const key = accountKey(number);
        const value = encodeFixtureAccount(
          number,
          hash160,
          FIXTURE_BALANCE + BigInt(number % 1000),
        );
        batch.put(concat(accountsPrefix, key), value);
        batch.put(concat(addressesPrefix, hash160), key);
        checksum.add(ENTRY_ACCOUNT, key, value);
        if (rawBytesPerAccount === 0) {
          rawBytesPerAccount =
            accountsPrefix.length + key.length + value.length + addressesPrefix.length + 20 + 4;
        }
      }
      await batch.write({ sync: false });
      if (Date.now() >= nextReport) {
        log(
          `    fixture: ${(first + WRITE_BATCH).toLocaleString('en-US')} accounts after ${seconds()} s`,
        );
        nextReport = Date.now() + 15_000;
      }
    }
    const synthetic = accounts - firstSynthetic;
    const spaces: SpaceWriter = {
      db,
      prefix: encoder.encode(db.sublevel(SUBLEVEL_SPACES).prefix),
      checksum,
    };
    const [largeAddress, smallAddress] = tokenAddresses as [string, string];
    largeToken = await addHolders(
      spaces,
      largeAddress,
      firstSynthetic,
      Math.min(holders, synthetic),
    );
    log(
      `    fixture: ${(largeToken.holders - 1).toLocaleString('en-US')} token holders written after ${seconds()} s`,
    );
    smallToken = await addHolders(
      spaces,
      smallAddress,
      firstSynthetic,
      Math.min(SMALL_TOKEN_HOLDERS, synthetic),
    );
    await db.batch().put(checksumKey, checksum.toBytes()).write({ sync: true });
  } finally {
    await db.close();
  }
  // The state root commits to the whole state: the head block is made to commit to this one.
  await resealHead(dir, createDevGenesis(), DEV_PRIVATE_KEY);

  // The node itself checks what was written: every account in sequence, the checksum of them all.
  log(`    fixture: written after ${seconds()} s; checking it (chain-node start --verify-state)`);
  const verifier = createNodeProcess({
    datadir: dir,
    args: ['--verify-state', '--log-level', 'warn'],
    readyTimeoutMs: 30 * 60_000,
  });
  try {
    await verifier.start();
  } finally {
    await verifier.close();
  }
  log(`    fixture: built and checked in ${seconds()} s`);
  return { accounts, firstSynthetic, rawBytesPerAccount, largeToken, smallToken };
}

interface SpaceWriter {
  db: Database;
  /** The `spaces` sublevel's prefix. */
  prefix: Uint8Array;
  checksum: StateChecksum;
}

const utf8 = new TextEncoder();

/** Reads a state-space entry (`<space>\u0000<key>`), undefined when absent. */
async function readSpace(w: SpaceWriter, fullKey: string): Promise<Uint8Array | undefined> {
  return w.db.get(concat(w.prefix, utf8.encode(fullKey)));
}

/** Writes a state-space entry into `batch`, the checksum moved from `before` to `value`. */
function putSpace(
  w: SpaceWriter,
  batch: ChainedBatch,
  fullKey: string,
  before: Uint8Array | undefined,
  value: Uint8Array,
): void {
  const key = utf8.encode(fullKey);
  if (before !== undefined) w.checksum.remove(ENTRY_SPACE, key, before);
  w.checksum.add(ENTRY_SPACE, key, value);
  batch.put(concat(w.prefix, key), value);
}

/**
 * Appends accounts first .. first+count-1 to the holder list of the token at `address` (whose only
 * holder is the dev wallet, its creator), each holding FIXTURE_TOKEN_BALANCE taken from the dev
 * wallet's balance.
 */
async function addHolders(
  w: SpaceWriter,
  address: string,
  first: number,
  count: number,
): Promise<FixtureToken> {
  const tokenKey = bytesToHex(decodeAddress(address, DEV_PREFIX).hash160);
  const tokenEntryKey = `${tokenSpace.name}\u0000${tokenKey}`;
  const holderEntryKey = (account: number) => `${holderSpace.name}\u0000${tokenKey}/${account}`;
  const tokenBytes = await readSpace(w, tokenEntryKey);
  if (tokenBytes === undefined) throw new Error(`token ${address} is not in the state`);
  const token: TokenState = tokenSpace.decode(tokenBytes);
  if (token.listed !== 1 || token.first !== token.issuer || token.last !== token.issuer) {
    throw new Error(`token ${address} has holders besides its creator`);
  }
  const issuerKey = holderEntryKey(token.issuer);
  const issuerBytes = await readSpace(w, issuerKey);
  if (issuerBytes === undefined)
    throw new Error(`token ${address} has no holder entry of its creator`);
  const issuer: HolderState = holderSpace.decode(issuerBytes);
  if (count === 0) return { address, holders: 1, firstHolder: first };

  let batch = w.db.batch();
  let inBatch = 0;
  for (let i = 0; i < count; i++) {
    const account = first + i;
    const holder: HolderState = {
      balance: FIXTURE_TOKEN_BALANCE,
      transfer: true,
      volumeLock: 0n,
      timeLock: 0n,
      timeLockUntil: 0,
      prev: i === 0 ? token.issuer : account - 1,
      next: i === count - 1 ? NO_HOLDER : account + 1,
    };
    putSpace(w, batch, holderEntryKey(account), undefined, holderSpace.encode(holder));
    if (++inBatch === WRITE_BATCH) {
      await batch.write({ sync: false });
      batch = w.db.batch();
      inBatch = 0;
    }
  }
  const moved = FIXTURE_TOKEN_BALANCE * BigInt(count);
  if (issuer.balance < moved)
    throw new Error(`token ${address}: supply too small for ${count} holders`);
  putSpace(
    w,
    batch,
    issuerKey,
    issuerBytes,
    holderSpace.encode({ ...issuer, balance: issuer.balance - moved, next: first }),
  );
  putSpace(
    w,
    batch,
    tokenEntryKey,
    tokenBytes,
    tokenSpace.encode({
      ...token,
      holders: token.holders + count,
      listed: token.listed + count,
      last: first + count - 1,
    }),
  );
  await batch.write({ sync: false });
  return { address, holders: count + 1, firstHolder: first };
}

/** A writable copy of `fixture` in a fresh directory beside it (remove it when done). */
export async function copyFixture(fixture: StateFixture): Promise<string> {
  const dir = `${fixture.dir}.run-${process.pid}-${Date.now()}`;
  await cp(fixture.dir, dir, { recursive: true });
  await rm(join(dir, READY_FILE), { force: true });
  return dir;
}

/** `count` addresses of the synthetic holders of `token` picked at random (repeats possible). */
export function randomHolderAddresses(token: FixtureToken, count: number): string[] {
  const span = token.holders - 1;
  if (span <= 0) throw new Error('the token has no synthetic holders');
  return Array.from({ length: count }, () =>
    fixtureAddress(token.firstHolder + Math.floor(Math.random() * span)),
  );
}

/** `count` addresses of synthetic accounts of `fixture` picked at random (repeats possible). */
export function randomFixtureAddresses(fixture: StateFixture, count: number): string[] {
  const span = fixture.accounts - fixture.firstSynthetic;
  if (span <= 0) throw new Error('the fixture has no synthetic accounts');
  return Array.from({ length: count }, () =>
    fixtureAddress(fixture.firstSynthetic + Math.floor(Math.random() * span)),
  );
}
