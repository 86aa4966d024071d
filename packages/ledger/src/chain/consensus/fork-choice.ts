/**
 * Fork choice (DESIGN §4, Clique/EIP-225): the chain with the greatest cumulative weight wins (in-turn
 * blocks weigh 2, out-of-turn blocks 1); between two tips of equal weight the one with the lower hash
 * wins, so every node picks the same tip from the same two chains without further communication.
 */
export interface ChainTip {
  /** Cumulative weight of the blocks after genesis. */
  weight: number;
  hash: Uint8Array;
}

/** Lexicographic byte order; negative when `a` sorts first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** True when `a` is preferred to `b` (strictly: a tip is never preferred to itself). */
export function isPreferredTip(a: ChainTip, b: ChainTip): boolean {
  if (a.weight !== b.weight) return a.weight > b.weight;
  return compareBytes(a.hash, b.hash) < 0;
}

/**
 * The recent-signer rule: a producer signs at most one of every `floor(n/2)+1` consecutive blocks, so
 * a minority of producers cannot build a chain alone. The returned count is how many blocks before a
 * new one its producer must not have signed.
 */
export function recentSignerWindow(producerCount: number): number {
  return Math.floor(producerCount / 2);
}

export function encodeWeight(weight: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(weight), true);
  return out;
}

export function decodeWeight(bytes: Uint8Array): number {
  if (bytes.length !== 8) throw new Error('bad weight record');
  return Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
}
