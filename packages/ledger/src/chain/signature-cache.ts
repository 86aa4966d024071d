/**
 * Digests whose signatures were verified, with the key they verified against (an account number
 * can map to another key on another fork, so a hit must also match the key). Bounded; the oldest
 * entries go first.
 */
export class SignatureCache {
  private readonly entries = new Map<string, Uint8Array>();

  constructor(private readonly capacity: number) {}

  has(digestKey: string, publicKey: Uint8Array): boolean {
    const key = this.entries.get(digestKey);
    // Usually the very key object of the account that verified it.
    if (key === publicKey) return true;
    if (key === undefined || key.length !== publicKey.length) return false;
    for (let i = 0; i < key.length; i++) if (key[i] !== publicKey[i]) return false;
    return true;
  }

  add(digestKey: string, publicKey: Uint8Array): void {
    if (this.entries.size >= this.capacity && !this.entries.has(digestKey)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(digestKey, publicKey);
  }

  get size(): number {
    return this.entries.size;
  }
}
