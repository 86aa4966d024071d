import { copyFile, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex, getPublicKey, hexToBytes, randomPrivateKey } from '@chain/crypto';
import { computeAddress, decryptKeystoreJson, encryptKeystoreJson } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  devAddressOf,
  LIGHT_SCRYPT,
  listOf,
  manualClock,
  rejectionOf,
  settle,
  useTempDirs,
  WIKI_VECTORS,
} from '../test/fixtures';
import { createKeyStore, type KeyStoreOptions } from './keystore';
import { LOCK_STATE_FILE } from './lock-state';

const newDir = useTempDirs();

async function openStore(dir: string, options: Partial<KeyStoreOptions> = {}) {
  const store = createKeyStore({ dir, addressOf: devAddressOf, scrypt: LIGHT_SCRYPT, ...options });
  await store.open();
  // A directory written before the index existed is indexed in the background first.
  await store.indexed();
  return store;
}

/** Key files in a directory (what the store should consider: not hidden). */
async function keyFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8'));
}

/** A v3 file as ethers (another implementation) writes it: `Crypto`, no chain field. */
async function ethersKeyFile(privateKey: Uint8Array, passphrase: string, N = LIGHT_SCRYPT.N) {
  const hex = `0x${bytesToHex(privateKey)}`;
  const json = await encryptKeystoreJson(
    { address: computeAddress(hex), privateKey: hex },
    passphrase,
    { scrypt: { N } },
  );
  return { json, ethAddress: computeAddress(hex).slice(2).toLowerCase() };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ms: performance.now() - start };
}

describe('create, load, decrypt', () => {
  it('creates the directory 0700 and one 0600 v3 file per key, named UTC--<time>--<address>.json', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const address = await store.create('correct horse');
    expect(address).toMatch(/^CH[0-9a-f]{46}$/);

    const [name, ...others] = await keyFiles(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(
      new RegExp(`^UTC--\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{9}Z--${address}\\.json$`),
    );
    expect((await stat(join(dir, name!))).mode & 0o777).toBe(0o600);

    const privateKey = await store.getPrivateKey(address, 'correct horse');
    const publicKey = getPublicKey(privateKey);
    expect(devAddressOf(publicKey)).toBe(address);
    const json = await readJson(join(dir, name!));
    expect(json.version).toBe(3);
    expect(json.address).toBe(
      computeAddress(`0x${bytesToHex(privateKey)}`)
        .slice(2)
        .toLowerCase(),
    );
    expect(json.chain).toEqual({ address, publicKey: bytesToHex(publicKey) });
    expect(JSON.stringify(json)).not.toContain('correct horse');
    expect(JSON.stringify(json)).not.toContain(bytesToHex(privateKey));
    await store.close();
  });

  it('loads every key again after a restart, in creation order', async () => {
    const dir = await newDir();
    const first = await openStore(dir);
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await first.create(`pass ${i}`));
    expect(await listOf(first)).toEqual(created);
    await first.close();

    const second = await openStore(dir);
    expect(await listOf(second)).toEqual(created);
    expect(second.count()).toBe(4);
    for (const [i, address] of created.entries()) {
      const key = await second.getPrivateKey(address, `pass ${i}`);
      expect(devAddressOf(getPublicKey(key))).toBe(address);
    }
    await second.close();
  });

  it('compares addresses case-insensitively on the hex part only', async () => {
    const store = await openStore(await newDir());
    const address = await store.create('p');
    const upperHex = `CH${address.slice(2).toUpperCase()}`;
    expect(await store.has(address)).toBe(true);
    expect(await store.has(upperHex)).toBe(true);
    expect(await store.has(`ch${address.slice(2)}`)).toBe(false);
    expect(await store.has('nonsense')).toBe(false);
    expect(await store.getPrivateKey(upperHex, 'p')).toHaveLength(32);
    await store.close();
  });

  it('answers hasMany in order, as has answers each, with a fresh store and a reopened one', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const held = [await store.create('p'), await store.create('p')];
    const asked = [
      held[1]!,
      'nonsense',
      `CH${held[0]!.slice(2).toUpperCase()}`,
      `ch${held[0]!.slice(2)}`,
      held[0]!,
    ];
    const expected = [true, false, true, false, true];
    expect(await store.hasMany(asked)).toEqual(expected);
    expect(await store.hasMany([])).toEqual([]);
    await store.close();
    // Reopened, nothing is in memory: every answer comes from the index on disk.
    const reopened = await openStore(dir);
    await reopened.indexed();
    expect(await reopened.hasMany(asked)).toEqual(expected);
    await reopened.close();
  });

  it('imports a key once; a second import leaves the stored file as it is', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = hexToBytes(WIKI_VECTORS.privateKey);
    const address = devAddressOf(getPublicKey(privateKey));
    expect(await store.importKey(privateKey, 'first')).toEqual({
      address,
      created: true,
      reencrypted: false,
    });
    expect(await store.importKey(privateKey, 'second')).toEqual({
      address,
      created: false,
      reencrypted: false,
    });
    expect(await keyFiles(dir)).toHaveLength(1);
    expect(await listOf(store)).toEqual([address]);
    await store.close();

    const reopened = await openStore(dir);
    expect(bytesToHex(await reopened.getPrivateKey(address, 'first'))).toBe(
      WIKI_VECTORS.privateKey,
    );
    expect((await rejectionOf(reopened.getPrivateKey(address, 'second'))).reason).toBe(
      'WRONG_PASSPHRASE',
    );
    await reopened.close();
  });

  it('refuses invalid private keys', async () => {
    const store = await openStore(await newDir());
    const order = hexToBytes('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
    for (const bad of [new Uint8Array(32), order, new Uint8Array(31).fill(1)]) {
      const error = await rejectionOf(store.importKey(bad, 'p'));
      expect(error).toMatchObject({
        reason: 'INVALID_PRIVATE_KEY',
        code: 1005,
        param: 'privateKey',
      });
    }
    expect(store.count()).toBe(0);
    await store.close();
  });
});

describe('passphrases', () => {
  it('refuses a wrong passphrase without echoing it, and an unknown wallet', async () => {
    const store = await openStore(await newDir());
    const address = await store.create('right');
    const wrong = await rejectionOf(store.getPrivateKey(address, 'hunter2-wrong'));
    expect(wrong).toMatchObject({ reason: 'WRONG_PASSPHRASE', code: 1030, param: 'passphrase' });
    expect(wrong.message).not.toContain('hunter2-wrong');

    const unknown = await rejectionOf(store.getPrivateKey(`CH${'0'.repeat(46)}`, 'right'));
    expect(unknown).toMatchObject({ reason: 'UNKNOWN_WALLET', code: 1010, param: 'address' });
    await store.close();
  });

  it('serves a cached key in microseconds, but a wrong passphrase still pays scrypt and fails', async () => {
    // N=2^14 makes one scrypt cost tens of milliseconds, far above any cache hit.
    const dir = await newDir();
    const writer = await openStore(dir, { scrypt: { N: 2 ** 14, r: 8, p: 1 } });
    const address = await writer.create('right');
    await writer.close();

    const store = await openStore(dir);
    const cold = await timed(() => store.getPrivateKey(address, 'right'));
    const rounds = 200;
    const warm = await timed(async () => {
      for (let i = 0; i < rounds; i++) await store.getPrivateKey(address, 'right');
    });
    expect(warm.ms / rounds).toBeLessThan(1);
    expect(warm.ms / rounds).toBeLessThan(cold.ms / 20);

    const wrong = await timed(() => rejectionOf(store.getPrivateKey(address, 'wrong')));
    expect(wrong.value.reason).toBe('WRONG_PASSPHRASE');
    // scrypt at N=2^14 takes tens of milliseconds; a cache-style check takes microseconds.
    expect(wrong.ms).toBeGreaterThan(Math.max(5, (10 * warm.ms) / rounds));
    // The cache survives a failed attempt.
    expect(devAddressOf(getPublicKey(await store.getPrivateKey(address, 'right')))).toBe(address);
    await store.close();
  });

  it('hands out copies: wiping a returned key does not wipe the cache', async () => {
    const store = await openStore(await newDir());
    const address = await store.create('p');
    const first = await store.getPrivateKey(address, 'p');
    const expected = bytesToHex(first);
    first.fill(0);
    expect(bytesToHex(await store.getPrivateKey(address, 'p'))).toBe(expected);
    await store.close();
  });

  it('wrong passphrases slow down the client that makes them; the owner elsewhere is never refused nor kept waiting', async () => {
    const clock = manualClock();
    const options = { maxAttemptsPerMinute: 3, maxWaitingPerClient: 2, clock };
    const store = await openStore(await newDir(), options);
    const target = await store.create('right'); // cached since create
    const bystander = await store.create('other');
    const guesser = { client: '127.0.0.2' };
    const owner = { client: '127.0.0.3' };

    // The allowance: three wrong guesses, checked at once.
    const first = await Promise.all(
      [0, 1, 2].map((i) => rejectionOf(store.getPrivateKey(target, `guess ${i}`, guesser))),
    );
    expect(first.map((error) => error.reason)).toEqual(Array(3).fill('WRONG_PASSPHRASE'));
    expect(clock.sleepers()).toBe(0);

    // Over it, the guesser's checks wait their turn, one at a time; the right passphrase too.
    const wrong = rejectionOf(store.getPrivateKey(target, 'guess 3', guesser));
    const right = store.getPrivateKey(target, 'right', guesser);
    const refused = await rejectionOf(store.getPrivateKey(target, 'guess 4', guesser));
    expect(refused).toMatchObject({ reason: 'TOO_MANY_ATTEMPTS', code: 1037, param: 'passphrase' });
    expect(refused.message).toMatch(/retry in \d+ s/);
    await settle();
    expect(clock.sleepers()).toBe(1);

    // The owner, calling from elsewhere meanwhile: served at once, this wallet and others.
    expect(devAddressOf(getPublicKey(await store.getPrivateKey(target, 'right', owner)))).toBe(
      target,
    );
    expect(await store.unlock(target, 'right', owner)).toBe(true);
    expect(await store.getPrivateKey(bystander, 'other', owner)).toHaveLength(32);
    expect(clock.sleepers()).toBe(1);

    // The guesser's turn comes: its wrong guess fails, then its right passphrase works.
    clock.wake();
    expect((await wrong).reason).toBe('WRONG_PASSPHRASE');
    await settle();
    clock.wake();
    expect(devAddressOf(getPublicKey(await right))).toBe(target);
    // The allowance comes back as failures leak away (a minute for all three).
    clock.advance(60_000);
    expect(await store.getPrivateKey(target, 'right', guesser)).toHaveLength(32);
    expect(clock.sleepers()).toBe(0);
    await store.close();
  });

  it('parallel guesses against a cached key are counted before any is answered: no quick answer for the right one', async () => {
    const clock = manualClock();
    const store = await openStore(await newDir(), { maxAttemptsPerMinute: 3, clock });
    const target = await store.create('right'); // cached: the check of 'right' costs an HMAC
    const outcomes: string[] = [];
    const guesses = ['g0', 'g1', 'g2', 'g3', 'right', 'g5'].map((guess) =>
      store.getPrivateKey(target, guess, { client: '10.1.1.1' }).then(
        () => outcomes.push(`${guess}: key`),
        (error: { reason: string }) => outcomes.push(`${guess}: ${error.reason}`),
      ),
    );
    // The first three were counted as they came in, so the rest go the slow way.
    await Promise.all(guesses.slice(0, 3));
    await settle();
    expect(outcomes).toEqual([
      'g0: WRONG_PASSPHRASE',
      'g1: WRONG_PASSPHRASE',
      'g2: WRONG_PASSPHRASE',
    ]);
    expect(clock.sleepers()).toBe(1);
    for (let i = 0; i < 3; i++) {
      clock.wake();
      await guesses[3 + i];
      await settle();
    }
    expect(outcomes.slice(3)).toEqual([
      'g3: WRONG_PASSPHRASE',
      'right: key',
      'g5: WRONG_PASSPHRASE',
    ]);
    await store.close();
  });

  it('a passphrase the cache does not know but the file opens is not held against the client', async () => {
    const clock = manualClock();
    const store = await openStore(await newDir(), { maxAttemptsPerMinute: 1, clock });
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301'; // the same text to NFKC, another string to the cache
    const address = await store.create(composed);
    expect(await store.getPrivateKey(address, decomposed, { client: 'x' })).toHaveLength(32);
    expect(await store.getPrivateKey(address, composed, { client: 'x' })).toHaveLength(32);
    expect(clock.sleepers()).toBe(0);
    await store.close();
  });

  it('keeps serving the event loop while scrypt runs', async () => {
    const dir = await newDir();
    const writer = await openStore(dir, { scrypt: { N: 2 ** 16, r: 8, p: 1 } });
    const address = await writer.create('p');
    await writer.close();

    const store = await openStore(dir);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 2);
    const { ms } = await timed(() => store.getPrivateKey(address, 'p'));
    clearInterval(timer);
    // A synchronous scrypt would block every tick until it returned.
    expect(ms).toBeGreaterThan(40);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(ms / 2 / 4));
    await store.close();
  });
});

describe('lock and unlock', () => {
  it('a locked wallet refuses its key, even with the right passphrase, across restarts', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const address = await store.create('right');
    const other = await store.create('other');
    expect(await store.isLocked(address)).toBe(false);
    await store.getPrivateKey(address, 'right'); // cached

    expect(await store.lock(address)).toBe(true);
    expect(await store.lock(address)).toBe(true);
    expect(await store.isLocked(address)).toBe(true);
    expect(await store.isLocked(other)).toBe(false);
    const locked = await rejectionOf(store.getPrivateKey(address, 'right'));
    expect(locked).toMatchObject({ reason: 'WALLET_LOCKED', code: 1015 });
    expect(await store.lock(`CH${'1'.repeat(46)}`)).toBe(false);
    await store.close();

    const reopened = await openStore(dir);
    expect(await reopened.isLocked(address)).toBe(true);
    expect((await rejectionOf(reopened.getPrivateKey(address, 'right'))).reason).toBe(
      'WALLET_LOCKED',
    );
    expect((await rejectionOf(reopened.unlock(address, 'wrong'))).reason).toBe('WRONG_PASSPHRASE');
    expect(await reopened.isLocked(address)).toBe(true);
    expect(await reopened.unlock(address, 'right')).toBe(true);
    expect(await reopened.isLocked(address)).toBe(false);
    expect(devAddressOf(getPublicKey(await reopened.getPrivateKey(address, 'right')))).toBe(
      address,
    );
    await reopened.close();

    const again = await openStore(dir);
    expect(await again.isLocked(address)).toBe(false);
    await again.close();
  });

  it('revision moves with every change of the wallets or their locks, and only then', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const moved = async (change: () => Promise<unknown>) => {
      const before = store.revision();
      await change();
      return store.revision() !== before;
    };
    let address = '';
    expect(await moved(async () => (address = await store.create('p')))).toBe(true);
    expect(await moved(() => store.getPrivateKey(address, 'p'))).toBe(false);
    expect(await moved(() => store.lock(address))).toBe(true);
    expect(await moved(() => store.lock(address))).toBe(false);
    expect(await moved(() => store.unlock(address, 'p'))).toBe(true);
    expect(await moved(() => store.unlock(address, 'p'))).toBe(false);
    await rm(join(dir, (await keyFiles(dir))[0]!));
    expect(await moved(() => store.refresh())).toBe(true);
    expect(await store.has(address)).toBe(false);
    await store.close();
  });

  it('lock wipes the cached key: the next check pays scrypt again', async () => {
    const store = await openStore(await newDir(), { scrypt: { N: 2 ** 14, r: 8, p: 1 } });
    const address = await store.create('p'); // cached since create
    const warm = await timed(() => store.getPrivateKey(address, 'p'));
    await store.lock(address);
    const unlock = await timed(() => store.unlock(address, 'p'));
    expect(unlock.ms).toBeGreaterThan(Math.max(10 * warm.ms, 5));
    await store.close();
  });

  it('a lock that lands while scrypt runs still refuses the key', async () => {
    const dir = await newDir();
    const writer = await openStore(dir, { scrypt: { N: 2 ** 14, r: 8, p: 1 } });
    const address = await writer.create('p');
    await writer.close();
    const store = await openStore(dir);
    const pending = rejectionOf(store.getPrivateKey(address, 'p'));
    await store.lock(address);
    expect((await pending).reason).toBe('WALLET_LOCKED');
    await store.close();
  });

  it('refuses a corrupt lock state instead of unlocking everything', async () => {
    const dir = await newDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LOCK_STATE_FILE), '{"version":1,"locked":[');
    const store = createKeyStore({ dir, addressOf: devAddressOf, scrypt: LIGHT_SCRYPT });
    expect(await rejectionOf(store.open())).toMatchObject({ reason: 'INVALID_LOCK_STATE' });
  });
});

describe('refresh and foreign files', () => {
  it('picks up a copied-in file and a removed one', async () => {
    const dirA = await newDir();
    const dirB = await newDir();
    const a = await openStore(dirA);
    const b = await openStore(dirB);
    const kept = await a.create('a');
    const removed = await a.create('b');
    const copied = await b.create('c');
    const [copiedFile] = await keyFiles(dirB);
    const removedFile = (await keyFiles(dirA)).find((name) => name.includes(removed))!;

    await copyFile(join(dirB, copiedFile!), join(dirA, copiedFile!));
    await rm(join(dirA, removedFile));
    expect(await a.refresh()).toEqual({
      added: 1,
      removed: 1,
      loaded: 2,
      unresolved: [],
      invalid: [],
    });
    expect((await listOf(a)).sort()).toEqual([kept, copied].sort());
    expect(await a.has(removed)).toBe(false);
    expect(bytesToHex(await a.getPrivateKey(copied, 'c'))).toBe(
      bytesToHex(await b.getPrivateKey(copied, 'c')),
    );
    expect((await rejectionOf(a.getPrivateKey(removed, 'b'))).reason).toBe('UNKNOWN_WALLET');
    expect(await a.refresh()).toMatchObject({ added: 0, removed: 0, invalid: [] });
    await a.close();
    await b.close();
  });

  it('resolves a foreign v3 file once its passphrase is given, and records the chain field', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    const { json, ethAddress } = await ethersKeyFile(privateKey, 'foreign pass');
    await writeFile(join(dir, `UTC--2020-01-01T00-00-00.0Z--${ethAddress}`), json);

    expect(await store.refresh()).toMatchObject({ added: 1, removed: 0, loaded: 0 });
    const file = `UTC--2020-01-01T00-00-00.0Z--${ethAddress}`;
    expect(store.unresolved()).toEqual([{ file, ethAddress }]);
    expect(await listOf(store)).toEqual([]);

    expect((await rejectionOf(store.resolveForeign(ethAddress, 'nope'))).reason).toBe(
      'WRONG_PASSPHRASE',
    );
    expect((await rejectionOf(store.resolveForeign('ab'.repeat(20), 'x'))).reason).toBe(
      'UNKNOWN_WALLET',
    );

    const expected = devAddressOf(getPublicKey(privateKey));
    expect(await store.resolveForeign(`0x${ethAddress.toUpperCase()}`, 'foreign pass')).toBe(
      expected,
    );
    expect(store.unresolved()).toEqual([]);
    expect(await listOf(store)).toEqual([expected]);
    expect(bytesToHex(await store.getPrivateKey(expected, 'foreign pass'))).toBe(
      bytesToHex(privateKey),
    );

    // The file keeps its name and everything ethers wrote, plus the chain field.
    const rewritten = await readJson(join(dir, `UTC--2020-01-01T00-00-00.0Z--${ethAddress}`));
    const original = JSON.parse(json);
    expect(rewritten).toEqual({
      ...original,
      chain: { address: expected, publicKey: bytesToHex(getPublicKey(privateKey)) },
    });
    await store.close();

    const reopened = await openStore(dir);
    expect(await listOf(reopened)).toEqual([expected]);
    expect(reopened.unresolved()).toEqual([]);
    await reopened.close();
  });

  it('orders foreign files by modification time, and resolving one keeps its place', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const ours = await store.create('ours');
    const foreign = [];
    for (const hoursAgo of [2, 1]) {
      const privateKey = randomPrivateKey();
      const { json, ethAddress } = await ethersKeyFile(privateKey, 'f');
      const path = join(dir, `${ethAddress}.json`);
      await writeFile(path, json);
      const time = new Date(Date.now() - hoursAgo * 3_600_000);
      await utimes(path, time, time);
      foreign.push({ ethAddress, address: devAddressOf(getPublicKey(privateKey)) });
    }
    await store.refresh();
    expect(store.unresolved().map((f) => f.ethAddress)).toEqual(foreign.map((f) => f.ethAddress));
    await store.resolveForeign(foreign[1]!.ethAddress, 'f');
    await store.resolveForeign(foreign[0]!.ethAddress, 'f');
    const expected = [foreign[0]!.address, foreign[1]!.address, ours];
    expect(await listOf(store)).toEqual(expected);
    await store.close();

    const reopened = await openStore(dir);
    expect(await listOf(reopened)).toEqual(expected);
    await reopened.close();
  });

  it('importing the key of an unresolved foreign file resolves it without a second file', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    const { json, ethAddress } = await ethersKeyFile(privateKey, 'foreign');
    await writeFile(join(dir, `${ethAddress}.json`), json);
    await store.refresh();
    const address = devAddressOf(getPublicKey(privateKey));
    expect(await store.importKey(privateKey, 'new')).toEqual({
      address,
      created: false,
      reencrypted: false,
    });
    expect(await listOf(store)).toEqual([address]);
    expect(await keyFiles(dir)).toEqual([`${ethAddress}.json`]);
    expect(await store.getPrivateKey(address, 'foreign')).toEqual(privateKey);
    await store.close();
  });

  it('forgets a cached key when its file changes under it (a passphrase changed elsewhere)', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const address = await store.create('old');
    const privateKey = await store.getPrivateKey(address, 'old');
    const [name] = await keyFiles(dir);
    const { json } = await ethersKeyFile(privateKey, 'new');
    const ours = await readJson(join(dir, name!));
    await writeFile(join(dir, name!), JSON.stringify({ ...JSON.parse(json), chain: ours.chain }));

    expect(await store.refresh()).toMatchObject({ added: 0, removed: 0 });
    expect((await rejectionOf(store.getPrivateKey(address, 'old'))).reason).toBe(
      'WRONG_PASSPHRASE',
    );
    expect(await store.getPrivateKey(address, 'new')).toEqual(privateKey);
    await store.close();
  });

  it('sees a file changed under a cached key at its next use, with no refresh, watched or not', async () => {
    for (const watchDirectory of [true, false]) {
      const dir = await newDir();
      const store = await openStore(dir, { watchDirectory });
      const address = await store.create('old');
      const privateKey = await store.getPrivateKey(address, 'old');
      // Used again: from the cache, the file vouched for by the watch (no stat) or by a stat.
      expect(await store.getPrivateKey(address, 'old')).toEqual(privateKey);
      const [name] = await keyFiles(dir);
      const { json } = await ethersKeyFile(privateKey, 'new');
      const ours = await readJson(join(dir, name!));
      await writeFile(join(dir, name!), JSON.stringify({ ...JSON.parse(json), chain: ours.chain }));

      expect((await rejectionOf(store.getPrivateKey(address, 'old'))).reason).toBe(
        'WRONG_PASSPHRASE',
      );
      expect(await store.getPrivateKey(address, 'new')).toEqual(privateKey);
      await rm(join(dir, name!));
      expect((await rejectionOf(store.getPrivateKey(address, 'new'))).reason).toBe(
        'UNKNOWN_WALLET',
      );
      await store.close();
    }
  });

  it('skips corrupt and unknown files on open and reports them, without crashing', async () => {
    const dir = await newDir();
    const writer = await openStore(dir);
    const good = await writer.create('p');
    await writer.close();
    const [goodFile] = await keyFiles(dir);
    const goodText = await readFile(join(dir, goodFile!), 'utf8');

    await writeFile(join(dir, 'notes.txt'), 'hello');
    await writeFile(join(dir, 'truncated.json'), goodText.slice(0, 100));
    await writeFile(join(dir, 'other.json'), JSON.stringify({ version: 3, hello: 'world' }));
    await writeFile(join(dir, 'big.json'), ' '.repeat(100_000));
    await writeFile(join(dir, 'copy.json'), goodText);
    // A copy made later (set explicitly: file system clocks are coarser than Date.now()).
    const later = new Date(Date.now() + 60_000);
    await utimes(join(dir, 'copy.json'), later, later);
    await writeFile(join(dir, 'no-address.json'), JSON.stringify(WIKI_VECTORS.scrypt.json));
    const tampered = JSON.parse(goodText);
    tampered.crypto.kdfparams.n = 2 ** 30;
    await writeFile(join(dir, 'tampered.json'), JSON.stringify(tampered));
    await mkdir(join(dir, 'subdir'));
    await writeFile(join(dir, '.hidden'), 'ignored');
    await writeFile(join(dir, 'backup.json~'), 'ignored');

    const store = await openStore(dir);
    expect(await listOf(store)).toEqual([good]);
    const problems = Object.fromEntries(store.invalidFiles().map((f) => [f.file, f.problem]));
    expect(Object.keys(problems).sort()).toEqual(
      [
        'big.json',
        'copy.json',
        'notes.txt',
        'other.json',
        'tampered.json',
        'truncated.json',
      ].sort(),
    );
    expect(problems['notes.txt']).toBe('not JSON');
    expect(problems['copy.json']).toBe(`holds the same key as ${goodFile}`);
    expect(problems['tampered.json']).toMatch(/scrypt N above/);
    // A v3 file without an address is no error: it waits for its passphrase (see below).
    expect(store.unresolved()).toEqual([{ file: 'no-address.json', ethAddress: null }]);
    expect((await store.refresh()).invalid).toHaveLength(6);
    expect(await store.getPrivateKey(good, 'p')).toHaveLength(32);
    await store.close();
  });

  it('refuses a file whose content is not the key its address claims', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const { json } = await ethersKeyFile(randomPrivateKey(), 'p');
    const liar = 'cd'.repeat(20);
    await writeFile(join(dir, 'liar.json'), JSON.stringify({ ...JSON.parse(json), address: liar }));
    await store.refresh();
    const error = await rejectionOf(store.resolveForeign(liar, 'p'));
    expect(error).toMatchObject({ reason: 'INVALID_KEY_FILE', code: 1016 });
    expect(error.message).toContain('liar.json');
    await store.close();
  });
});

describe('importing a key already in the store, to re-encrypt it', () => {
  it('rewrites its file under the new passphrase: the old one stops working, the cache too', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    const { address } = await store.importKey(privateKey, 'old'); // cached under 'old'
    const [name] = await keyFiles(dir);
    const before = await readJson(join(dir, name!));

    expect(await store.importKey(privateKey, 'new', { existing: 'reencrypt' })).toEqual({
      address,
      created: false,
      reencrypted: true,
    });
    expect(await keyFiles(dir)).toEqual([name]);
    const after = await readJson(join(dir, name!));
    expect(after.id).toBe(before.id);
    expect(after.chain).toEqual(before.chain);
    expect(after.crypto).not.toEqual(before.crypto);
    expect((await rejectionOf(store.getPrivateKey(address, 'old'))).reason).toBe(
      'WRONG_PASSPHRASE',
    );
    expect(await store.getPrivateKey(address, 'new')).toEqual(privateKey);
    const opened = await decryptKeystoreJson(JSON.stringify(after), 'new');
    expect(opened.privateKey).toBe(`0x${bytesToHex(privateKey)}`);
    await store.close();

    const reopened = await openStore(dir);
    expect(await reopened.getPrivateKey(address, 'new')).toEqual(privateKey);
    await reopened.close();
  });

  it('a locked wallet stays locked, under its new passphrase', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    const { address } = await store.importKey(privateKey, 'old');
    await store.lock(address);
    await store.importKey(privateKey, 'new', { existing: 'reencrypt' });
    expect(await store.isLocked(address)).toBe(true);
    expect((await rejectionOf(store.getPrivateKey(address, 'new'))).reason).toBe('WALLET_LOCKED');
    expect((await rejectionOf(store.unlock(address, 'old'))).reason).toBe('WRONG_PASSPHRASE');
    expect(await store.unlock(address, 'new')).toBe(true);
    expect(await store.getPrivateKey(address, 'new')).toEqual(privateKey);
    await store.close();
  });

  it('re-encrypting the key of an unresolved foreign file resolves it, in the same file', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    const { json, ethAddress } = await ethersKeyFile(privateKey, 'foreign');
    await writeFile(join(dir, `${ethAddress}.json`), json);
    await store.refresh();
    const address = devAddressOf(getPublicKey(privateKey));
    await store.importKey(privateKey, 'mine now', { existing: 'reencrypt' });
    expect(await listOf(store)).toEqual([address]);
    expect(store.unresolved()).toEqual([]);
    expect(await keyFiles(dir)).toEqual([`${ethAddress}.json`]);
    expect(await store.getPrivateKey(address, 'mine now')).toEqual(privateKey);
    await store.close();
  });
});

describe('foreign files resolved on first use', () => {
  /** A plain v3 file: version, id, crypto, and `address` only when asked. */
  async function plainKeyFile(privateKey: Uint8Array, passphrase: string, withAddress: boolean) {
    const { json, ethAddress } = await ethersKeyFile(privateKey, passphrase);
    const parsed = JSON.parse(json);
    return JSON.stringify({
      version: 3,
      id: parsed.id,
      ...(withAddress ? { address: ethAddress } : {}),
      crypto: parsed.Crypto,
    });
  }

  it('a file with or without its address becomes a wallet when its chain address comes with its passphrase', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const keys = [randomPrivateKey(), randomPrivateKey()];
    await writeFile(join(dir, 'with-address.json'), await plainKeyFile(keys[0]!, 'one', true));
    await writeFile(join(dir, 'no-address.json'), await plainKeyFile(keys[1]!, 'two', false));
    const scan = await store.refresh();
    expect(scan).toMatchObject({ added: 2, loaded: 0, invalid: [] });
    expect(scan.unresolved.map((f) => f.file).sort()).toEqual([
      'no-address.json',
      'with-address.json',
    ]);
    const [first, second] = keys.map((key) => devAddressOf(getPublicKey(key)));
    expect(await store.has(first!)).toBe(false);

    expect(await store.getPrivateKey(first!, 'one')).toEqual(keys[0]);
    expect(await store.unlock(second!, 'two')).toBe(true);
    expect((await listOf(store)).sort()).toEqual([first, second].sort());
    expect(store.unresolved()).toEqual([]);
    expect(await store.getPrivateKey(second!, 'two')).toEqual(keys[1]);

    // Both files now say who they are, and still open in ethers.
    const rewritten = await readJson(join(dir, 'no-address.json'));
    expect(rewritten.address).toBe(
      computeAddress(`0x${bytesToHex(keys[1]!)}`)
        .slice(2)
        .toLowerCase(),
    );
    expect(rewritten.chain).toEqual({
      address: second,
      publicKey: bytesToHex(getPublicKey(keys[1]!)),
    });
    const opened = await decryptKeystoreJson(JSON.stringify(rewritten), 'two');
    expect(opened.privateKey).toBe(`0x${bytesToHex(keys[1]!)}`);
    await store.close();

    const reopened = await openStore(dir);
    expect((await listOf(reopened)).sort()).toEqual([first, second].sort());
    await reopened.close();
  });

  it('a passphrase that opens no foreign file is an unknown wallet, and a failure of its client', async () => {
    const clock = manualClock();
    const dir = await newDir();
    const store = await openStore(dir, { maxAttemptsPerMinute: 1, clock });
    const privateKey = randomPrivateKey();
    await writeFile(join(dir, 'foreign.json'), await plainKeyFile(privateKey, 'right', false));
    await store.refresh();
    const address = devAddressOf(getPublicKey(privateKey));
    const error = await rejectionOf(store.getPrivateKey(address, 'wrong', { client: 'x' }));
    expect(error).toMatchObject({ reason: 'UNKNOWN_WALLET', code: 1010, param: 'address' });
    expect(error.message).toMatch(/opens none of the 1 key files made elsewhere/);
    expect(store.unresolved()).toHaveLength(1);
    // Client x is over its allowance now: its next try waits.
    const next = store.getPrivateKey(address, 'right', { client: 'x' });
    await settle();
    expect(clock.sleepers()).toBe(1);
    clock.wake();
    expect(await next).toEqual(privateKey);
    await store.close();
  });

  it('an address nobody holds costs nothing when no foreign file waits', async () => {
    const clock = manualClock();
    const store = await openStore(await newDir(), { maxAttemptsPerMinute: 1, clock });
    await store.create('p');
    const stranger = devAddressOf(getPublicKey(randomPrivateKey()));
    for (let i = 0; i < 3; i++) {
      expect((await rejectionOf(store.getPrivateKey(stranger, 'p', { client: 'x' }))).reason).toBe(
        'UNKNOWN_WALLET',
      );
    }
    expect(clock.sleepers()).toBe(0);
    await store.close();
  });

  it('a foreign copy of a key already listed is reported as a second copy once opened', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const privateKey = randomPrivateKey();
    await store.importKey(privateKey, 'ours');
    const other = randomPrivateKey();
    await writeFile(join(dir, 'copy.json'), await plainKeyFile(privateKey, 'shared', false));
    await writeFile(join(dir, 'other.json'), await plainKeyFile(other, 'shared', false));
    await store.refresh();
    const otherAddress = devAddressOf(getPublicKey(other));
    expect(await store.getPrivateKey(otherAddress, 'shared')).toEqual(other);
    const [ours] = await keyFiles(dir);
    expect(store.invalidFiles()).toEqual([
      { file: 'copy.json', problem: `holds the same key as ${ours}` },
    ]);
    expect(store.unresolved()).toEqual([]);
    await store.close();
  });
});

describe('lifecycle', () => {
  it('close is idempotent, wipes the store, and a reopen works', async () => {
    const dir = await newDir();
    const store = await openStore(dir);
    const address = await store.create('p');
    await store.close();
    await store.close();
    expect((await rejectionOf(store.page(undefined, 10))).reason).toBe('KEYSTORE_CLOSED');
    expect((await rejectionOf(store.getPrivateKey(address, 'p'))).reason).toBe('KEYSTORE_CLOSED');
    await store.open();
    expect(await listOf(store)).toEqual([address]);
    await store.close();
  });

  it('a call in flight when the store closes returns no key', async () => {
    const dir = await newDir();
    const writer = await openStore(dir, { scrypt: { N: 2 ** 14, r: 8, p: 1 } });
    const address = await writer.create('p');
    await writer.close();
    const store = await openStore(dir);
    const pending = rejectionOf(store.getPrivateKey(address, 'p'));
    await sleep(0);
    await store.close();
    expect((await pending).reason).toBe('KEYSTORE_CLOSED');
  });

  it('refuses bad options up front', () => {
    const dir = '/nonexistent';
    expect(() =>
      createKeyStore({ dir, addressOf: devAddressOf, scrypt: { N: 1000, r: 8, p: 1 } }),
    ).toThrow(RangeError);
    expect(() => createKeyStore({ dir, addressOf: devAddressOf, maxAttemptsPerMinute: 0 })).toThrow(
      RangeError,
    );
  });
});
