import { bytesToHex, getPublicKey } from '@chain/crypto';
import { writeFileAtomic } from './atomic-file';
import { assertPassphrase, fileChanged } from './errors';
import { ethereumAddressOf } from './ethereum-address';
import { encryptKeyFile } from './key-file';
import { keyFileName } from './key-file-name';
import type { KeyEntry } from './key-index-api';
import type { ImportOptions, ImportResult } from './keystore-api';
import { DIRECTORY, type KeyStoreContext } from './keystore-context';

/** What a key store writes to its directory: new keys, rewrites, resolved and rejected files. */
export interface KeyWrites {
  addKey(
    privateKey: Uint8Array,
    passphrase: string,
    existingPolicy?: ImportOptions['existing'],
  ): Promise<ImportResult>;
  /**
   * Records the chain field (and the `address` a file may lack) in a foreign file, rewritten
   * atomically, and lists the key. null when the entry is gone, or when another file already holds
   * this key (this one is then reported as a second copy, as a scan would have).
   */
  resolveEntry(entry: KeyEntry, publicKey: Uint8Array): Promise<KeyEntry | null>;
  /** Reports a file that is not a usable key (if it is still the file indexed). */
  markInvalid(entry: KeyEntry, problem: string): Promise<void>;
}

export function createKeyWrites(ctx: KeyStoreContext): KeyWrites {
  const { dir, index, queue, cache, locks, forget } = ctx;
  const { scrypt } = ctx.settings;

  /**
   * The file first, durably (atomic-file.ts), then the index; the name is journaled in the index
   * before, so a crash between the two is repaired at the next open without a scan. Rewrites keep
   * the creation time, which for files without a geth-style name is the mtime.
   */
  async function writeAndIndex(fileName: string, createdAt: bigint, json: unknown): Promise<void> {
    const text = `${JSON.stringify(json, null, 2)}\n`;
    const mtime = new Date(Number(createdAt / 1_000_000n));
    const before = await index.dirMtime();
    await index.journal(fileName);
    await writeFileAtomic(dir, fileName, text, { mtime });
    const after = await index.dirMtime();
    await index.syncNames([fileName], forget, { before, after });
    ctx.changed();
  }

  async function addKey(
    privateKey: Uint8Array,
    passphrase: string,
    existingPolicy: ImportOptions['existing'] = 'keep',
  ): Promise<ImportResult> {
    assertPassphrase(passphrase);
    const started = ctx.ensureOpen();
    const publicKey = getPublicKey(privateKey);
    const id = ethereumAddressOf(publicKey);
    const address = ctx.chainAddressOf(publicKey);
    return queue.runExclusive(id, async () => {
      ctx.ensureSession(started);
      // While the index is built, a file of this key not indexed yet is found by its name.
      const existing = (await index.byId(id)) ?? (await ctx.lookup(address));
      if (existing !== undefined) {
        if (existingPolicy === 'reencrypt') {
          await reencryptEntry(existing, privateKey, passphrase, started);
          return { address, created: false, reencrypted: true };
        }
        // A foreign file of this very key: knowing the key, its public key is known too.
        if (existing.address === null) await resolveEntry(existing, publicKey);
        return { address, created: false, reencrypted: false };
      }
      const json = await encryptKeyFile(privateKey, passphrase, scrypt, address);
      const createdAt = ctx.nextCreationTime();
      const fileName = keyFileName(createdAt, address);
      const written = await queue.runExclusive(DIRECTORY, async () => {
        ctx.ensureSession(started);
        // A refresh may have found a copy of this key while scrypt ran.
        if ((await index.byId(id)) !== undefined) return false;
        await writeAndIndex(fileName, createdAt, json);
        return true;
      });
      const entry = written ? await index.byAddress(address) : undefined;
      if (entry === undefined || entry.fileName !== fileName) {
        return { address, created: false, reencrypted: false };
      }
      cache.remember(entry, privateKey, passphrase);
      // New keys start unlocked, even if a deleted file of the same key was locked.
      if (await locks.setLocked(address, false)) ctx.changed();
      return { address, created: true, reencrypted: false };
    });
  }

  /**
   * Rewrites a key's file (same name, creation time and v3 id) encrypted under a new passphrase, at
   * this store's scrypt cost. The old passphrase stops working at once: the cache forgets it, and a
   * check that was deriving from the old file when it was replaced starts again on the new one.
   */
  async function reencryptEntry(
    entry: KeyEntry,
    privateKey: Uint8Array,
    passphrase: string,
    started: number,
  ): Promise<void> {
    const address = ctx.chainAddressOf(getPublicKey(privateKey));
    const json = await encryptKeyFile(privateKey, passphrase, scrypt, address);
    const v3Id = entry.file.json.id;
    const rewritten = typeof v3Id === 'string' ? { ...json, id: v3Id } : json;
    const id = await queue.runExclusive(DIRECTORY, async () => {
      ctx.ensureSession(started);
      const current = await index.current(entry, forget);
      if (current === undefined || current.fileName !== entry.fileName) {
        throw fileChanged(entry, 'privateKey');
      }
      await writeAndIndex(entry.fileName, entry.createdAt, rewritten);
      cache.forget(current.id);
      return ethereumAddressOf(getPublicKey(privateKey));
    });
    const rewrittenEntry = await index.byId(id);
    if (rewrittenEntry !== undefined && !ctx.isEntryLocked(rewrittenEntry)) {
      cache.remember(rewrittenEntry, privateKey, passphrase);
    }
  }

  async function resolveEntry(entry: KeyEntry, publicKey: Uint8Array): Promise<KeyEntry | null> {
    const started = ctx.ensureOpen();
    const address = ctx.chainAddressOf(publicKey);
    const ethAddress = ethereumAddressOf(publicKey);
    return queue.runExclusive(DIRECTORY, async () => {
      ctx.ensureSession(started);
      if (!(await index.isCurrent(entry))) {
        const now = await index.byAddress(address);
        return now?.fileName === entry.fileName ? now : null;
      }
      if (entry.address !== null) return entry;
      const holder = await index.byId(ethAddress);
      if (holder !== undefined && holder.fileName !== entry.fileName) {
        await index.reject(entry, `holds the same key as ${holder.fileName}`);
        ctx.changed();
        return null;
      }
      const json = {
        ...entry.file.json,
        address: ethAddress,
        chain: { address, publicKey: bytesToHex(publicKey) },
      };
      await writeAndIndex(entry.fileName, entry.createdAt, json);
      const resolved = await index.byAddress(address);
      return resolved?.fileName === entry.fileName ? resolved : null;
    });
  }

  async function markInvalid(entry: KeyEntry, problem: string): Promise<void> {
    await queue.runExclusive(DIRECTORY, async () => {
      if (!(await index.isCurrent(entry))) return;
      await index.reject(entry, problem);
      ctx.changed();
    });
  }

  return { addKey, resolveEntry, markInvalid };
}
