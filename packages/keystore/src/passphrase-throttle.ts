import { isIPv4, isIPv6 } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { KeyStoreError } from './errors';
import { createKeyedMutex } from './keyed-mutex';

export interface ThrottleClock {
  /** Milliseconds from a monotonic clock. */
  now(): number;
  /** Resolves after `ms`; must not keep the process alive on its own. */
  sleep(ms: number): Promise<void>;
}

export interface PassphraseThrottleOptions {
  /** Wrong passphrases a client may make within `windowMs` before its checks go the slow way. */
  maxFailures: number;
  windowMs: number;
  /** Wait before each check of a client over its allowance. */
  delayMs: number;
  /** Checks a client over its allowance may have running or waiting; more are refused at once. */
  maxWaiting: number;
  /** Clients remembered; past it, new clients share one allowance (see `clientOf`). */
  maxClients: number;
  clock?: ThrottleClock;
}

export interface PassphraseThrottle {
  /**
   * True while `client` is over its allowance: its checks wait, one at a time, and skip the cache.
   * `own` failures already recorded for the check asking are not held against it.
   */
  isThrottled(client: string, own?: number): boolean;
  recordFailure(client: string): void;
  /** Takes back one failure recorded ahead of a check that then proved the passphrase right. */
  refund(client: string): void;
  /**
   * Runs `check` after every earlier check of the same client has settled: one key derivation per
   * client at a time, so one client never holds more than one thread of the pool. A client over
   * its allowance first waits `delayMs`, and is refused (TOO_MANY_ATTEMPTS) when `maxWaiting` of
   * its checks are already queued. `check` learns whether it runs the slow way; `own` is as for
   * isThrottled.
   */
  run<T>(client: string, check: (slow: boolean) => Promise<T>, own?: number): Promise<T>;
  /** Clients remembered (for tests of the memory bound). */
  trackedClients(): number;
  clear(): void;
}

/** Calls made inside the process (start-up, the producer), not by an RPC caller. */
export const LOCAL_CLIENT = 'local';
/** The shared allowance of the clients that arrive while `maxClients` others are remembered. */
const OVERFLOW_CLIENT = '<overflow>';

interface Level {
  /** Failures not yet leaked away, as of `at`. */
  level: number;
  at: number;
}

const SYSTEM_CLOCK: ThrottleClock = {
  now: () => performance.now(),
  sleep: (ms) => delay(ms, undefined, { ref: false }),
};

/**
 * Wrong-passphrase throttling per client, never per wallet: wrong guesses slow down the client that
 * makes them, while the owner of the wallet, calling from elsewhere, is neither refused nor queued
 * behind them. Each client has a leaky bucket: a failure adds one, `maxFailures` leak away per
 * `windowMs`, and a client whose bucket is full is over its allowance. Its checks then run one at
 * a time, each after `delayMs` (by default the leak interval, so the sustained guessing rate stays
 * `maxFailures` per window) and through the key derivation even when the key is cached: the cheap
 * cache check is no guessing oracle. The right passphrase still works, late. Memory: one small
 * record per client with failures that have not leaked away, at most `maxClients`.
 */
export function createPassphraseThrottle(options: PassphraseThrottleOptions): PassphraseThrottle {
  const { maxFailures, windowMs, delayMs, maxWaiting, maxClients } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const leakPerMs = maxFailures / windowMs;
  // A bucket never holds more than two allowances, so a client is forgotten at most two windows
  // after its last failure however long it kept guessing.
  const capacity = 2 * maxFailures;
  const levels = new Map<string, Level>();
  const queue = createKeyedMutex();

  function levelOf(key: string): number {
    const entry = levels.get(key);
    if (entry === undefined) return 0;
    const now = clock.now();
    const level = Math.max(0, entry.level - (now - entry.at) * leakPerMs);
    if (level === 0) {
      levels.delete(key);
      return 0;
    }
    entry.level = level;
    entry.at = now;
    return level;
  }

  /** The key that holds `client`'s failures: its own, or the shared one while memory is full. */
  function keyOf(client: string): string {
    return levels.has(client) || levels.size < maxClients ? client : OVERFLOW_CLIENT;
  }

  /** keyOf, after making room by forgetting the clients whose failures have leaked away. */
  function roomFor(client: string): string {
    if (keyOf(client) === client) return client;
    for (const key of [...levels.keys()]) levelOf(key);
    return keyOf(client);
  }

  function isThrottled(client: string, own = 0): boolean {
    return levelOf(keyOf(client)) - own >= maxFailures;
  }

  return {
    isThrottled,

    recordFailure(client) {
      const key = roomFor(client);
      const level = Math.min(capacity, levelOf(key) + 1);
      levels.set(key, { level, at: clock.now() });
    },

    refund(client) {
      const key = keyOf(client);
      const level = levelOf(key) - 1;
      if (level <= 0) levels.delete(key);
      else levels.set(key, { level, at: clock.now() });
    },

    async run(client, check, own = 0) {
      if (isThrottled(client, own) && queue.pending(client) >= maxWaiting) {
        throw new KeyStoreError(
          'TOO_MANY_ATTEMPTS',
          `too many passphrase checks waiting after wrong passphrases from this client: retry in ${Math.ceil(
            (maxWaiting * delayMs) / 1000,
          )} s`,
          { param: 'passphrase' },
        );
      }
      return queue.runExclusive(client, async () => {
        const slow = isThrottled(client, own);
        if (slow && delayMs > 0) await clock.sleep(delayMs);
        return check(slow);
      });
    },

    trackedClients() {
      return levels.size;
    },

    clear() {
      levels.clear();
    },
  };
}

/**
 * The client a remote address stands for: an IPv4 address as it is (IPv4-mapped IPv6 included),
 * an IPv6 address by its /64 prefix (one host commonly holds a whole /64, so counting single IPv6
 * addresses would let it make up new clients at will), anything else (in-process calls) as
 * LOCAL_CLIENT.
 */
export function clientOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return LOCAL_CLIENT;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped !== null) return mapped[1]!;
  if (isIPv4(remoteAddress)) return remoteAddress;
  const address = remoteAddress.split('%')[0]!;
  if (!isIPv6(address)) return LOCAL_CLIENT;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').filter((group) => !group.includes('.'));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = Math.max(0, 8 - left.length - right.length);
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) =>
    Number.parseInt(group, 16).toString(16),
  );
}
