/**
 * Clique-style proof of authority (EIP-225, DESIGN §4): the producers take turns by account number;
 * the in-turn producer of height h is `producers[h mod n]` (the set is kept sorted) and its block
 * weighs 2, a block by any other producer weighs 1.
 */
export const IN_TURN_WEIGHT = 2;
export const OUT_OF_TURN_WEIGHT = 1;

export function inTurnProducer(producers: readonly number[], height: number): number | undefined {
  if (producers.length === 0) return undefined;
  return producers[height % producers.length];
}

export function blockWeight(
  producers: readonly number[],
  height: number,
  producer: number,
): number {
  return inTurnProducer(producers, height) === producer ? IN_TURN_WEIGHT : OUT_OF_TURN_WEIGHT;
}
