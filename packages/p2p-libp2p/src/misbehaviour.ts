/**
 * Misbehaviour points by offence. A peer (by IP) that reaches BAN_SCORE is disconnected and
 * blacklisted; points fade at DECAY_PER_MINUTE, so rare honest mistakes (a message cut off by a
 * restart) never add up to a ban.
 */
export const PENALTY = Object.freeze({
  /** A block that fails validation (bad signature, bad state root, broken rules). */
  invalidBlock: 100,
  /** A hello from another chain or protocol, or no hello at all. */
  badHandshake: 100,
  /** A message over its size limit. */
  oversized: 50,
  /** Bytes that do not decode as the message they should be. */
  garbage: 40,
  /** A gossiped operation batch that does not decode. */
  invalidOperations: 20,
  /** A branch claimed heavier that was not, or a request that timed out. */
  unhelpful: 10,
});

export const BAN_SCORE = 100;
export const DECAY_PER_MINUTE = 10;

export type Offence = keyof typeof PENALTY;

export class MisbehaviourScores {
  private readonly scores = new Map<string, { points: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds the offence's points to `ip` and returns its score. */
  add(ip: string, offence: Offence): number {
    const score = this.score(ip) + PENALTY[offence];
    this.scores.set(ip, { points: score, at: this.now() });
    return score;
  }

  score(ip: string): number {
    const entry = this.scores.get(ip);
    if (entry === undefined) return 0;
    const faded = entry.points - ((this.now() - entry.at) / 60_000) * DECAY_PER_MINUTE;
    if (faded <= 0) {
      this.scores.delete(ip);
      return 0;
    }
    return faded;
  }

  forget(ip: string): void {
    this.scores.delete(ip);
  }
}
