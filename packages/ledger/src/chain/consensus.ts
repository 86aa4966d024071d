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

/**
 * The producer expected to sign the block at `height`: the in-turn one or, when the recent-signer rule
 * bars it (after a change of the producer set or an out-of-turn block), the first after it in rotation
 * order that may sign. Every node computes the same one from the same state, so the rotation gets back
 * in step at once: only that producer signs without the out-of-turn delay.
 */
export function expectedProducer(
  producers: readonly number[],
  height: number,
  maySign: (account: number) => boolean,
): number | undefined {
  for (let i = 0; i < producers.length; i++) {
    const account = producers[(height + i) % producers.length]!;
    if (maySign(account)) return account;
  }
  return undefined;
}
