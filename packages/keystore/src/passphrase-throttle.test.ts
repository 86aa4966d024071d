import { describe, expect, it } from 'vitest';
import { manualClock, rejectionOf, settle } from '../test/fixtures';
import {
  clientOf,
  createPassphraseThrottle,
  LOCAL_CLIENT,
  type PassphraseThrottleOptions,
} from './passphrase-throttle';

function throttleWith(options: Partial<PassphraseThrottleOptions> = {}) {
  const clock = manualClock();
  const throttle = createPassphraseThrottle({
    maxFailures: 3,
    windowMs: 60_000,
    delayMs: 20_000,
    maxWaiting: 2,
    maxClients: 100,
    clock,
    ...options,
  });
  return { clock, throttle };
}

describe('createPassphraseThrottle', () => {
  it('throttles a client after maxFailures, and only that client', () => {
    const { throttle } = throttleWith();
    for (let i = 0; i < 2; i++) throttle.recordFailure('10.0.0.1');
    expect(throttle.isThrottled('10.0.0.1')).toBe(false);
    throttle.recordFailure('10.0.0.1');
    expect(throttle.isThrottled('10.0.0.1')).toBe(true);
    expect(throttle.isThrottled('10.0.0.2')).toBe(false);
    // A check whose own failure is already counted is not held back by it.
    expect(throttle.isThrottled('10.0.0.1', 1)).toBe(false);
  });

  it('lets failures leak away at maxFailures per window, then forgets the client', () => {
    const { clock, throttle } = throttleWith();
    for (let i = 0; i < 3; i++) throttle.recordFailure('a');
    clock.advance(20_000); // one failure's worth
    expect(throttle.isThrottled('a')).toBe(false);
    throttle.recordFailure('a');
    expect(throttle.isThrottled('a')).toBe(true);
    clock.advance(60_000);
    expect(throttle.isThrottled('a')).toBe(false);
    expect(throttle.trackedClients()).toBe(0);
  });

  it('takes back a refunded failure', () => {
    const { throttle } = throttleWith();
    for (let i = 0; i < 3; i++) throttle.recordFailure('a');
    throttle.refund('a');
    expect(throttle.isThrottled('a')).toBe(false);
  });

  it("runs a client's checks one at a time, others' beside them", async () => {
    const { throttle } = throttleWith();
    const order: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const first = throttle.run('a', async () => {
      order.push('a1 start');
      await new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      order.push('a1 end');
    });
    const second = throttle.run('a', async () => {
      order.push('a2');
    });
    const other = throttle.run('b', async () => {
      order.push('b');
    });
    await other;
    expect(order).toEqual(['a1 start', 'b']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('makes a throttled client wait before each check, and refuses it past maxWaiting', async () => {
    const { clock, throttle } = throttleWith();
    for (let i = 0; i < 3; i++) throttle.recordFailure('a');
    const slowness: boolean[] = [];
    const checks = [1, 2].map(() =>
      throttle.run('a', async (slow) => {
        slowness.push(slow);
      }),
    );
    const refused = await rejectionOf(throttle.run('a', async () => undefined));
    expect(refused).toMatchObject({ reason: 'TOO_MANY_ATTEMPTS', param: 'passphrase' });
    await settle();
    expect(slowness).toEqual([]);
    expect(clock.sleepers()).toBe(1);
    // Another client is neither refused nor delayed meanwhile.
    expect(await throttle.run('b', async (slow) => slow)).toBe(false);
    clock.wake();
    await settle();
    expect(slowness).toEqual([true]);
    clock.wake();
    await Promise.all(checks);
    expect(slowness).toEqual([true, true]);
  });

  it('remembers at most maxClients; past it new clients share one allowance', () => {
    const { clock, throttle } = throttleWith({ maxClients: 4 });
    for (const client of ['a', 'b', 'c', 'd']) throttle.recordFailure(client);
    expect(throttle.trackedClients()).toBe(4);
    for (let i = 0; i < 3; i++) throttle.recordFailure('e');
    expect(throttle.trackedClients()).toBe(5); // the four, and the shared allowance
    expect(throttle.isThrottled('e')).toBe(true);
    expect(throttle.isThrottled('f')).toBe(true);
    expect(throttle.isThrottled('a')).toBe(false);
    // Clients whose failures leaked away make room again.
    clock.advance(120_000);
    throttle.recordFailure('g');
    expect(throttle.trackedClients()).toBe(1);
    expect(throttle.isThrottled('f')).toBe(false);
  });

  it('bounds what one client can pile up: two allowances at most', () => {
    const { clock, throttle } = throttleWith();
    for (let i = 0; i < 1000; i++) throttle.recordFailure('a');
    clock.advance(120_000);
    expect(throttle.isThrottled('a')).toBe(false);
    expect(throttle.trackedClients()).toBe(0);
  });
});

describe('clientOf', () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped IPv6, groups IPv6 by /64', () => {
    expect(clientOf('127.0.0.2')).toBe('127.0.0.2');
    expect(clientOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('takes calls without an address as the process itself', () => {
    expect(clientOf(undefined)).toBe(LOCAL_CLIENT);
    expect(clientOf('')).toBe(LOCAL_CLIENT);
  });
});
