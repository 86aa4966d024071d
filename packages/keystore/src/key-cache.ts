import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Whose key: its identity, and its chain address when known (a key entry is one). */
export interface KeyOwner {
  readonly id: string;
  readonly address: string | null;
}

export interface KeyCache {
  /** Keeps a copy of `privateKey`, to be released only to the same passphrase. */
  remember(owner: KeyOwner, privateKey: Uint8Array, passphrase: string): void;
  /** A copy of the cached key when `passphrase` is the one it was remembered with, else undefined. */
  recall(id: string, passphrase: string): Uint8Array | undefined;
  /** True when a key is cached for `id`, whatever its passphrase. */
  holds(id: string): boolean;
  /** Wipes one key. */
  forget(id: string): void;
  /**
   * Wipes the key of a chain address, if cached: lockWallet's, which so needs no read of the
   * index to learn the key's identity.
   */
  forgetWallet(address: string): void;
  /** Wipes every key. */
  clear(): void;
}

/** Keys held at most; past it the least recently used is wiped (its next use pays scrypt again). */
const DEFAULT_MAX_KEYS = 10_000;

interface CachedKey {
  privateKey: Uint8Array;
  tag: Buffer;
  address: string | null;
}

/**
 * Decrypted keys held after scrypt and the MAC verified a passphrase, so later calls cost an HMAC
 * instead of a scrypt. A caller must still present the passphrase: it is checked against
 * HMAC-SHA256(secret, passphrase) under a secret drawn per cache (so per process), which never
 * leaves memory; the passphrase itself is not stored.
 */
export function createKeyCache(maxKeys = DEFAULT_MAX_KEYS): KeyCache {
  const secret = randomBytes(32);
  const entries = new Map<string, CachedKey>();
  /** The identity of each cached key that has a chain address (as many as `entries` at most). */
  const idOfAddress = new Map<string, string>();
  const tagOf = (passphrase: string) => createHmac('sha256', secret).update(passphrase).digest();

  function forget(id: string): void {
    const entry = entries.get(id);
    if (entry === undefined) return;
    entry.privateKey.fill(0);
    entries.delete(id);
    if (entry.address !== null && idOfAddress.get(entry.address) === id) {
      idOfAddress.delete(entry.address);
    }
  }

  return {
    remember({ id, address }, privateKey, passphrase) {
      forget(id);
      if (address !== null) idOfAddress.set(address, id);
      entries.set(id, { privateKey: privateKey.slice(), tag: tagOf(passphrase), address });
      if (entries.size > maxKeys) forget(entries.keys().next().value!);
    },
    recall(id, passphrase) {
      const entry = entries.get(id);
      if (entry === undefined || !timingSafeEqual(tagOf(passphrase), entry.tag)) return undefined;
      // Most recently used last, so the bound wipes the key unused the longest.
      entries.delete(id);
      entries.set(id, entry);
      return entry.privateKey.slice();
    },
    holds(id) {
      return entries.has(id);
    },
    forget,
    forgetWallet(address) {
      const id = idOfAddress.get(address);
      if (id !== undefined) forget(id);
    },
    clear() {
      for (const id of [...entries.keys()]) forget(id);
    },
  };
}
