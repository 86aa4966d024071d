import { getPublicKey } from '@chain/crypto';
import { assertPassphrase, KeyStoreError, unknownWallet } from './errors';
import { decryptKeyFile, type ParsedKeyFile } from './key-file';
import type { KeyEntry } from './key-index-api';
import type { KeyWrites } from './key-writes';
import type { KeyStoreContext } from './keystore-context';
import { normalizeAddress } from './wallet-address';

/** How a key store finds a wallet for a client and proves a passphrase before a key leaves it. */
export interface KeyChecks {
  /**
   * The key, once `passphrase` is proven right: by the cache's HMAC tag when the key is cached,
   * else by the key derivation and the MAC. Derivations run one at a time per client, and wrong
   * passphrases are throttled per client (see passphrase-throttle.ts). A cache check that fails is
   * counted at once, before anything is queued: parallel guesses cannot all reach the cheap check
   * before the first of them is counted.
   */
  verifyPassphrase(entry: KeyEntry, passphrase: string, client: string): Promise<Uint8Array>;
  /**
   * The entry of `address` and its key, `passphrase` proven right. An address not listed may be
   * that of a file made elsewhere whose chain address is unknown: the passphrase is tried on every
   * such file, in the client's turn, and counts as one wrong passphrase when none opens.
   * `found` is current()'s answer when the caller looked the wallet up already.
   */
  checkedKey(
    address: string,
    passphrase: string,
    client: string,
    found?: { entry: KeyEntry | undefined },
  ): Promise<{ entry: KeyEntry; privateKey: Uint8Array }>;
  /**
   * The wallet of `address` as its file is now (a stat, unless the directory's watch vouches for
   * it), looked up at once but handed on in the order the client's calls came (the throttle counts
   * wrong passphrases as they arrive). `before` runs in that turn (getPrivateKey's lock check).
   */
  current(
    address: string,
    client: string,
    before?: (entry: KeyEntry) => Promise<void>,
  ): Promise<KeyEntry | undefined>;
}

export function createKeyChecks(ctx: KeyStoreContext, writes: KeyWrites): KeyChecks {
  const { index, cache, throttle, queue, forget } = ctx;

  async function verifyPassphrase(
    entry: KeyEntry,
    passphrase: string,
    client: string,
  ): Promise<Uint8Array> {
    assertPassphrase(passphrase);
    const started = ctx.ensureOpen();
    let counted = false;
    if (!throttle.isThrottled(client)) {
      const cached = cache.recall(entry.id, passphrase);
      if (cached !== undefined) return cached;
      if (cache.holds(entry.id)) {
        throttle.recordFailure(client);
        counted = true;
      }
    }
    return throttle.run(
      client,
      (slow) => checkPassphrase(entry, passphrase, client, { slow, counted, started }),
      counted ? 1 : 0,
    );
  }

  /** verifyPassphrase's part that runs in the client's turn. */
  async function checkPassphrase(
    entry: KeyEntry,
    passphrase: string,
    client: string,
    turn: { slow: boolean; counted: boolean; started: number },
  ): Promise<Uint8Array> {
    ctx.ensureSession(turn.started);
    // A check queued ahead may have filled the cache; a slow check never asks it.
    const cached = turn.slow ? undefined : cache.recall(entry.id, passphrase);
    const privateKey = cached ?? (await decryptCurrent(entry, passphrase, turn.started));
    if (privateKey === null) {
      if (!turn.counted) throttle.recordFailure(client);
      throw new KeyStoreError('WRONG_PASSPHRASE', `wrong passphrase for ${ctx.label(entry)}`, {
        param: 'passphrase',
      });
    }
    // A passphrase the cache did not know but the file accepts (another Unicode form of it).
    if (turn.counted) throttle.refund(client);
    if (cached === undefined && !ctx.isEntryLocked(entry) && (await index.isCurrent(entry))) {
      cache.remember(entry, privateKey, passphrase);
    }
    return privateKey;
  }

  /** The file's key for `passphrase`, or null; tried again if the file was replaced meanwhile. */
  async function decryptCurrent(
    entry: KeyEntry,
    passphrase: string,
    started: number,
  ): Promise<Uint8Array | null> {
    let current = entry;
    for (;;) {
      const privateKey = await decryptFileOf(current, current.file, passphrase);
      ctx.ensureSession(started, privateKey ?? undefined);
      if (await index.isCurrent(current)) return privateKey;
      const replaced = await index.current(current, forget);
      ctx.ensureSession(started, privateKey ?? undefined);
      // Gone, or only its index record changed (resolved meanwhile): the file decrypted stands.
      if (replaced === undefined || replaced.stamp === current.stamp) return privateKey;
      privateKey?.fill(0);
      current = replaced;
    }
  }

  async function decryptFileOf(
    entry: KeyEntry,
    file: ParsedKeyFile,
    passphrase: string,
  ): Promise<Uint8Array | null> {
    try {
      return await decryptKeyFile(file, passphrase);
    } catch (error) {
      if (error instanceof KeyStoreError) {
        throw new KeyStoreError(
          'INVALID_KEY_FILE',
          `${entry.fileName}: ${error.message.replace(/^invalid key file: /, '')}`,
        );
      }
      throw error;
    }
  }

  async function checkedKey(
    address: string,
    passphrase: string,
    client: string,
    found?: { entry: KeyEntry | undefined },
  ): Promise<{ entry: KeyEntry; privateKey: Uint8Array }> {
    const started = ctx.ensureOpen();
    const wanted = normalizeAddress(address);
    const known = found?.entry ?? (found === undefined ? await current(wanted, client) : undefined);
    ctx.ensureSession(started);
    if (known !== undefined) {
      return { entry: known, privateKey: await verifyPassphrase(known, passphrase, client) };
    }
    if (index.unresolved().length === 0) throw unknownWallet(address);
    assertPassphrase(passphrase);
    return throttle.run(client, async (slow) => {
      ctx.ensureSession(started);
      const resolvedMeanwhile = await index.byAddress(wanted);
      if (resolvedMeanwhile !== undefined) {
        const turn = { slow, counted: false, started };
        const privateKey = await checkPassphrase(resolvedMeanwhile, passphrase, client, turn);
        return { entry: resolvedMeanwhile, privateKey };
      }
      const candidates = await index.unresolvedEntries();
      for (const candidate of candidates) {
        const found = await tryForeignFile(candidate, passphrase, started);
        if (found === null) continue;
        if (found.entry.address === wanted) return found;
        found.privateKey.fill(0);
      }
      throttle.recordFailure(client);
      throw unknownWallet(
        address,
        ` (the passphrase opens none of the ${candidates.length} key files made elsewhere)`,
      );
    });
  }

  function current(
    address: string,
    client: string,
    before?: (entry: KeyEntry) => Promise<void>,
  ): Promise<KeyEntry | undefined> {
    const found = (async () => {
      const vouches = await index.vouching();
      const listed = await ctx.lookup(address);
      if (listed === undefined || vouches?.(listed)) return listed;
      return index.current(listed, forget);
    })();
    // Taken in the client's turn; until then a failure must not count as unhandled.
    found.catch(() => undefined);
    return queue.runExclusive(`<client ${client}>`, async () => {
      const entry = await found;
      if (entry !== undefined) await before?.(entry);
      return entry;
    });
  }

  /** Decrypts an unresolved file and resolves it when the passphrase opens it. */
  async function tryForeignFile(
    entry: KeyEntry,
    passphrase: string,
    started: number,
  ): Promise<{ entry: KeyEntry; privateKey: Uint8Array } | null> {
    let privateKey: Uint8Array | null;
    try {
      privateKey = await decryptCurrent(entry, passphrase, started);
    } catch (error) {
      // A file whose MAC matches but whose content is not its key: reported, then passed over.
      if (!(error instanceof KeyStoreError) || error.reason !== 'INVALID_KEY_FILE') throw error;
      await writes.markInvalid(entry, error.message.slice(entry.fileName.length + 2));
      return null;
    }
    if (privateKey === null) return null;
    const resolved = await writes.resolveEntry(entry, getPublicKey(privateKey));
    if (resolved === null) {
      privateKey.fill(0);
      return null;
    }
    if (!ctx.isEntryLocked(resolved)) cache.remember(resolved, privateKey, passphrase);
    return { entry: resolved, privateKey };
  }

  return { verifyPassphrase, checkedKey, current };
}
