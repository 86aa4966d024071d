import { ADDRESS_PREFIX_LENGTH, bytesToHex } from '@chain/crypto';
import { type InvalidKeyFile, type KeyFileRecord, scanKeyDirectory } from './key-directory';
import type { ParsedKeyFile } from './key-file';
import type { UnresolvedKeyFile } from './keystore-api';

export interface KeyEntry {
  /**
   * The key's Ethereum-style address, which identifies it before its chain address is known; for
   * a file that does not say, `?` and the file name until the file is first decrypted.
   */
  id: string;
  readonly fileName: string;
  readonly createdAt: bigint;
  file: ParsedKeyFile;
  /** Normalised chain address, null until the key's public key is known. */
  address: string | null;
}

/**
 * The key files of the directory as the store knows them: in creation order, by identity, by chain
 * address, and the files that hold no usable key. Changes go through the store's directory queue.
 */
interface KeyIndex {
  /** In creation order. */
  entries(): readonly KeyEntry[];
  byId(id: string): KeyEntry | undefined;
  byAddress(address: string): KeyEntry | undefined;
  /** The entry is still the one indexed under its identity (not replaced by a scan, not gone). */
  isCurrent(entry: KeyEntry): boolean;
  walletCount(): number;
  unresolved(): UnresolvedKeyFile[];
  invalid(): InvalidKeyFile[];
  /** Reads the directory again; `forget` is told of every key whose cached copy must go. */
  load(forget: (id: string) => void): Promise<{ added: number; removed: number }>;
  insert(entry: KeyEntry): void;
  /** Lists an entry under its chain address, and under its Ethereum-style one when it had none. */
  resolve(entry: KeyEntry, ethAddress: string, address: string): void;
  /** Drops an entry and reports its file as holding no usable key. */
  reject(entry: KeyEntry, problem: string): void;
  clear(): void;
}

export function createKeyIndex(
  dir: string,
  addressOf: (publicKey33: Uint8Array) => string,
): KeyIndex {
  let entries: KeyEntry[] = [];
  let byId = new Map<string, KeyEntry>();
  let byAddress = new Map<string, KeyEntry>();
  let invalid: InvalidKeyFile[] = [];

  function entryFromRecord(record: KeyFileRecord, forget: (id: string) => void): KeyEntry {
    const id = record.ethAddress ?? `?${record.fileName}`;
    const previous = byId.get(id);
    if (previous !== undefined && sameFile(previous, record)) return previous;
    // New, or rewritten by someone else (a changed passphrase): the cached key no longer belongs
    // to the passphrase that unlocked it.
    forget(id);
    return {
      id,
      fileName: record.fileName,
      createdAt: record.createdAt,
      file: record.file,
      address:
        record.file.chain === null
          ? null
          : normalizeAddress(addressOf(record.file.chain.publicKey)),
    };
  }

  return {
    entries: () => entries,
    byId: (id) => byId.get(id),
    byAddress: (address) => byAddress.get(normalizeAddress(address)),
    isCurrent: (entry) => byId.get(entry.id) === entry,
    walletCount: () => byAddress.size,
    unresolved: () =>
      entries.flatMap((entry) =>
        entry.address === null
          ? [{ file: entry.fileName, ethAddress: entry.id.startsWith('?') ? null : entry.id }]
          : [],
      ),
    invalid: () => [...invalid],

    async load(forget) {
      const scan = await scanKeyDirectory(dir);
      const next: KeyEntry[] = [];
      const skipped: InvalidKeyFile[] = [...scan.invalid];
      for (const record of scan.records) {
        try {
          next.push(entryFromRecord(record, forget));
        } catch {
          skipped.push({ file: record.fileName, problem: 'no chain address for its public key' });
        }
      }
      const nextIds = new Set(next.map((entry) => entry.id));
      let removed = 0;
      for (const id of byId.keys()) {
        if (nextIds.has(id)) continue;
        removed++;
        forget(id);
      }
      const added = next.filter((entry) => !byId.has(entry.id)).length;
      entries = next;
      byId = new Map(next.map((entry) => [entry.id, entry]));
      byAddress = new Map();
      for (const entry of next) if (entry.address !== null) byAddress.set(entry.address, entry);
      invalid = skipped;
      return { added, removed };
    },

    insert(entry) {
      let index = entries.length;
      while (index > 0 && entries[index - 1]!.createdAt > entry.createdAt) index--;
      entries.splice(index, 0, entry);
      byId.set(entry.id, entry);
      if (entry.address !== null) byAddress.set(entry.address, entry);
    },

    resolve(entry, ethAddress, address) {
      byId.delete(entry.id);
      entry.id = ethAddress;
      byId.set(ethAddress, entry);
      entry.address = address;
      byAddress.set(address, entry);
    },

    reject(entry, problem) {
      entries = entries.filter((other) => other !== entry);
      if (byId.get(entry.id) === entry) byId.delete(entry.id);
      invalid = [...invalid, { file: entry.fileName, problem }];
    },

    clear() {
      entries = [];
      byId = new Map();
      byAddress = new Map();
    },
  };
}

/** The prefix as it is, the hex part in lowercase: how addresses are compared here. */
export function normalizeAddress(address: string): string {
  if (typeof address !== 'string') return '';
  return (
    address.slice(0, ADDRESS_PREFIX_LENGTH) + address.slice(ADDRESS_PREFIX_LENGTH).toLowerCase()
  );
}

function sameFile(entry: KeyEntry, record: KeyFileRecord): boolean {
  const a = entry.file;
  const b = record.file;
  return (
    entry.fileName === record.fileName &&
    bytesToHex(a.mac) === bytesToHex(b.mac) &&
    bytesToHex(a.ciphertext) === bytesToHex(b.ciphertext) &&
    (a.chain === null) === (b.chain === null)
  );
}
