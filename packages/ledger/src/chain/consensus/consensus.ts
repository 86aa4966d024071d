/**
 * Clique-style proof of authority (EIP-225, DESIGN §4 as refined in docs/decisions.md): the producers
 * take turns by account number. The set is kept sorted; the in-turn producer of a block is the
 * successor, in that order and wrapping around, of its parent's producer (the first producer with a
 * greater account number, whether or not the parent's producer is still in the set). The block right
 * after genesis has no parent producer and falls back to `producers[h mod n]`. An in-turn block weighs
 * 2, a block by any other producer 1.
 *
 * Why the successor and not EIP-225's `h mod n`: when a block comes out of turn (a producer was away,
 * or the set changed), `h mod n` can name as next in turn the producer that just signed, which the
 * recent-signer rule bars; with two producers that repeats at every height and every block from then on
 * waits out the out-of-turn delay. The successor of an out-of-turn signer is never among the recent
 * signers when all producers are online, so the rotation is back in phase at the very next block.
 */
export const IN_TURN_WEIGHT = 2;
export const OUT_OF_TURN_WEIGHT = 1;

/** Where a block stands in the rotation. */
export interface RotationSlot {
  height: number;
  /** Producer account of the parent block; undefined for the block right after genesis. */
  parentProducer: number | undefined;
}

/** The producer in turn for a block at `slot`, among `producers` (ascending account numbers). */
export function inTurnProducer(
  producers: readonly number[],
  slot: RotationSlot,
): number | undefined {
  if (producers.length === 0) return undefined;
  const parent = slot.parentProducer;
  if (parent === undefined) return producers[slot.height % producers.length];
  return producers.find((account) => account > parent) ?? producers[0];
}

export function blockWeight(
  producers: readonly number[],
  slot: RotationSlot,
  producer: number,
): number {
  return inTurnProducer(producers, slot) === producer ? IN_TURN_WEIGHT : OUT_OF_TURN_WEIGHT;
}
