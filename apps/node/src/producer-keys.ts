/**
 * The block-signing keys this node holds, by wallet address: the dev key on the dev network, the
 * mine wallets that blockchainStart unlocked (with `minepass`) and those of `--mine-wallet`. Kept in
 * memory only; the producer asks for them at every block, so a key added while running takes its
 * turn from the next block on, and a key removed (its wallet locked) signs no block after that.
 */
export interface ProducerKeys {
  add(wallet: string, privateKey: Uint8Array): void;
  /** Forgets (and wipes) the wallet's key; returns whether it was held. */
  remove(wallet: string): boolean;
  has(wallet: string): boolean;
  keys(): Iterable<Uint8Array>;
  count(): number;
  /** Wipes every key (at shutdown). */
  clear(): void;
  /** Called after each `add` (the block producer plans again with the new key). */
  onAdd(listener: () => void): () => void;
}

export function createProducerKeys(): ProducerKeys {
  const byWallet = new Map<string, Uint8Array>();
  const listeners = new Set<() => void>();
  return {
    add(wallet, privateKey) {
      byWallet.get(wallet)?.fill(0);
      byWallet.set(wallet, Uint8Array.from(privateKey));
      for (const listener of listeners) listener();
    },
    remove(wallet) {
      const key = byWallet.get(wallet);
      if (key === undefined) return false;
      key.fill(0);
      byWallet.delete(wallet);
      return true;
    },
    has(wallet) {
      return byWallet.has(wallet);
    },
    keys() {
      return byWallet.values();
    },
    count() {
      return byWallet.size;
    },
    clear() {
      for (const key of byWallet.values()) key.fill(0);
      byWallet.clear();
    },
    onAdd(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
