/**
 * Misbehaviour points by offence. A peer (by IP) that reaches BAN_SCORE is disconnected and
 * blacklisted; points fade at DECAY_PER_MINUTE, so rare honest mistakes (a message cut off by a
 * restart) never add up to a ban.
 */
export const PENALTY = Object.freeze({
  /** A block that fails validation (bad signature, bad state root, broken rules). */
  invalidBlock: 100,
  /**
   * A block forwarded on its valid header whose body then failed the import (gossip forwards a
   * block before importing it): the producer signed it, and an honest relay that forwarded it on its
   * header gets this too, so it is not a ban at once (docs/decisions.md, session 26).
   */
  invalidBlockBody: 20,
  /** A hello from another chain or protocol, or no hello at all. */
  badHandshake: 100,
  /** A message over its size limit. */
  oversized: 50,
  /** Bytes that do not decode as the message they should be. */
  garbage: 40,
  /** A gossiped operation batch that does not decode. */
  invalidOperations: 20,
  /** An inbound stream beyond its protocol's limit on one connection (STREAM_LIMITS). */
  tooManyStreams: 20,
  /** A stream closed inside a message (bad framing; a crash mid-message is rare, so it is mild). */
  truncated: 20,
  /** A message beyond its rate limit (RATE_LIMITS): it is dropped; ten of them are a ban. */
  flood: 10,
  /**
   * An inbound connection that did not complete the encrypted handshake (noise, muxer) in time:
   * garbage on the raw socket, or a socket held open to tie up a handshake slot.
   */
  failedHandshake: 10,
  /** A branch claimed heavier that was not, or a request that timed out. */
  unhelpful: 10,
});

export const BAN_SCORE = 100;
export const DECAY_PER_MINUTE = 10;

export type Offence = keyof typeof PENALTY;

/** Scores kept before faded ones are dropped (many IPs each scored once must not grow the map). */
const SWEEP_ABOVE = 4096;

/** Points fade one at a time (whole points: five offences of 20 are exactly a ban). */
const MS_PER_POINT = 60_000 / DECAY_PER_MINUTE;

export class MisbehaviourScores {
  /** Points of each IP, as of `at` (the fading counted so far). */
  private readonly scores = new Map<string, { points: number; at: number }>();
  /** The size at which faded scores are next looked for (doubles while none have faded). */
  private sweepAbove = SWEEP_ABOVE;

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds the offence's points to `ip` and returns its score. */
  add(ip: string, offence: Offence): number {
    const points = this.score(ip) + PENALTY[offence];
    const entry = this.scores.get(ip);
    if (entry !== undefined) {
      entry.points = points;
      return points;
    }
    if (this.scores.size >= this.sweepAbove) {
      for (const known of [...this.scores.keys()]) this.score(known);
      this.sweepAbove = Math.max(SWEEP_ABOVE, this.scores.size * 2);
    }
    this.scores.set(ip, { points, at: this.now() });
    return points;
  }

  /** IPs with a score. */
  get size(): number {
    return this.scores.size;
  }

  score(ip: string): number {
    const entry = this.scores.get(ip);
    if (entry === undefined) return 0;
    const faded = Math.floor((this.now() - entry.at) / MS_PER_POINT);
    if (faded > 0) {
      entry.points -= faded;
      entry.at += faded * MS_PER_POINT;
    }
    if (entry.points <= 0) {
      this.scores.delete(ip);
      return 0;
    }
    return entry.points;
  }

  forget(ip: string): void {
    this.scores.delete(ip);
  }
}
