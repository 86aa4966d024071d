/** A sustained rate with a burst allowance (a token bucket of `burst` tokens refilled at `perSecond`). */
export interface MessageRate {
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets kept before full (idle) ones are dropped: an idle bucket is the same as a missing one. */
const SWEEP_ABOVE = 4096;

/**
 * Per-IP token buckets, one per kind of message. A peer may send a burst, then at the sustained
 * rate; a message without a token is refused. Keyed by IP, not by connection, so that opening more
 * connections (or reconnecting) buys no extra allowance.
 */
export class PeerRateLimiter<Kind extends string> {
  private readonly buckets = new Map<string, Bucket>();
  /** The size at which idle buckets are next looked for (doubles while none are idle). */
  private sweepAbove = SWEEP_ABOVE;

  constructor(
    private readonly rates: Readonly<Record<Kind, MessageRate>>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for one message of `kind` from `ip`; false when it has none left. */
  take(ip: string, kind: Kind): boolean {
    const rate = this.rates[kind];
    const key = `${kind} ${ip}`;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: rate.burst, at: now };
    bucket.tokens = refilled(bucket, rate, now);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= this.sweepAbove) this.sweep(now);
      this.buckets.set(key, bucket);
    }
    return allowed;
  }

  /** Buckets held (IPs x kinds). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const rate = this.rates[key.slice(0, key.indexOf(' ')) as Kind];
      if (refilled(bucket, rate, now) >= rate.burst) this.buckets.delete(key);
    }
    this.sweepAbove = Math.max(SWEEP_ABOVE, this.buckets.size * 2);
  }
}

function refilled(bucket: Bucket, rate: MessageRate, now: number): number {
  const elapsed = Math.max(0, now - bucket.at) / 1000;
  return Math.min(rate.burst, bucket.tokens + elapsed * rate.perSecond);
}
