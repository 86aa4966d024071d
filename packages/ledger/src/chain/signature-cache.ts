import { RecentMap } from '../state/recent-map';

/** The same public key (usually the very same object). */
export function sameKey(a: Uint8Array | undefined, b: Uint8Array): boolean {
  // Usually the very key object of the account that verified it.
  if (a === b) return true;
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Digests whose signatures were verified, with the key they verified against (an account number
 * can map to another key on another fork, so a hit must also match the key). Bounded; the least
 * recently added go first.
 */
export class SignatureCache {
  private readonly entries: RecentMap<string, Uint8Array>;

  constructor(capacity: number) {
    this.entries = new RecentMap(capacity);
  }

  has(digestKey: string, publicKey: Uint8Array): boolean {
    return sameKey(this.entries.get(digestKey), publicKey);
  }

  add(digestKey: string, publicKey: Uint8Array): void {
    this.entries.set(digestKey, publicKey);
  }
}
