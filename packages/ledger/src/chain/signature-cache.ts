import { RecentMap } from '../state/recent-map';

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
    const key = this.entries.get(digestKey);
    // Usually the very key object of the account that verified it.
    if (key === publicKey) return true;
    if (key === undefined || key.length !== publicKey.length) return false;
    for (let i = 0; i < key.length; i++) if (key[i] !== publicKey[i]) return false;
    return true;
  }

  add(digestKey: string, publicKey: Uint8Array): void {
    this.entries.set(digestKey, publicKey);
  }
}
