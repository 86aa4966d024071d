import { bytesToHex } from '@chain/crypto';

/**
 * The block-signing keys this node holds: the dev key on the dev network, and the mine wallets that
 * blockchainStart unlocked (with `minepass`). Kept in memory only; the producer asks for them at
 * every block, so a key added while running takes its turn from the next block on.
 */
export interface ProducerKeys {
  add(privateKey: Uint8Array): void;
  remove(privateKey: Uint8Array): void;
  keys(): Iterable<Uint8Array>;
  count(): number;
  /** Wipes every key (at shutdown). */
  clear(): void;
  /** Called after each `add` (the block producer plans again with the new key). */
  onAdd(listener: () => void): () => void;
}

export function createProducerKeys(): ProducerKeys {
  const byKey = new Map<string, Uint8Array>();
  const listeners = new Set<() => void>();
  return {
    add(privateKey) {
      byKey.set(bytesToHex(privateKey), Uint8Array.from(privateKey));
      for (const listener of listeners) listener();
    },
    remove(privateKey) {
      const id = bytesToHex(privateKey);
      byKey.get(id)?.fill(0);
      byKey.delete(id);
    },
    keys() {
      return byKey.values();
    },
    count() {
      return byKey.size;
    },
    clear() {
      for (const key of byKey.values()) key.fill(0);
      byKey.clear();
    },
    onAdd(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
