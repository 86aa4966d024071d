import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKeyedMutex } from './keyed-mutex';

describe('createKeyedMutex', () => {
  it('runs tasks of one key one at a time, in call order, and other keys alongside', async () => {
    const mutex = createKeyedMutex();
    const running = new Map<string, number>();
    let maxA = 0;
    let maxTotal = 0;
    const order: number[] = [];
    const task = (key: string, index: number) => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      maxA = Math.max(maxA, running.get('a') ?? 0);
      maxTotal = Math.max(
        maxTotal,
        [...running.values()].reduce((x, y) => x + y, 0),
      );
      await sleep(5);
      if (key === 'a') order.push(index);
      running.set(key, running.get(key)! - 1);
      return index;
    };
    const results = await Promise.all([
      ...[0, 1, 2, 3].map((i) => mutex.runExclusive('a', task('a', i))),
      mutex.runExclusive('b', task('b', 9)),
    ]);
    expect(results).toEqual([0, 1, 2, 3, 9]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(maxA).toBe(1);
    expect(maxTotal).toBe(2);
  });

  it('keeps going after a failed task and frees a key once its queue is empty', async () => {
    const mutex = createKeyedMutex();
    const failed = mutex.runExclusive('a', async () => {
      throw new Error('boom');
    });
    const next = mutex.runExclusive('a', async () => 'ok');
    expect(mutex.pending('a')).toBe(2);
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    expect(mutex.pending('a')).toBe(0);
  });
});
