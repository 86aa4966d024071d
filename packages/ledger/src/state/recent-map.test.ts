import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentMap } from './recent-map';

describe('RecentMap', () => {
  it('answers the last value set for each of the latest capacity / 2 keys set', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 64 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer()), { maxLength: 300 }),
        (capacity, writes) => {
          const map = new RecentMap<number, number>(capacity);
          for (const [key, value] of writes) map.set(key, value);
          const latest = new Map<number, number>();
          for (const [key, value] of writes) {
            latest.delete(key);
            latest.set(key, value);
          }
          const recent = [...latest].slice(-Math.floor(capacity / 2));
          for (const [key, value] of recent) expect(map.get(key)).toBe(value);
        },
      ),
    );
  });

  it('never holds more than its capacity, and forgets everything on clear', () => {
    const map = new RecentMap<number, number>(10);
    for (let i = 0; i < 1000; i++) map.set(i, i);
    const held = Array.from({ length: 1000 }, (_, i) => map.get(i)).filter((v) => v !== undefined);
    expect(held.length).toBeGreaterThanOrEqual(5);
    expect(held.length).toBeLessThanOrEqual(10);
    map.clear();
    expect(map.get(999)).toBeUndefined();
  });

  it('forgets a deleted key, also one set again after its generation turned', () => {
    const map = new RecentMap<number, number>(4);
    map.set(1, 1);
    map.set(2, 2);
    map.set(3, 3); // turns: 1 and 2 are the previous generation
    map.set(1, 10); // 1 in both generations now
    map.delete(1);
    map.delete(3);
    expect(map.get(1)).toBeUndefined();
    expect(map.get(3)).toBeUndefined();
    expect(map.get(2)).toBe(2);
  });

  it('keeps what is read: an entry read from the older generation moves to the newer', () => {
    const map = new RecentMap<number, string>(4);
    map.set(1, 'a');
    map.set(2, 'b');
    map.set(3, 'c'); // 1 and 2 become the older generation
    expect(map.get(1)).toBe('a'); // read: moves to the newer
    map.set(4, 'd'); // the newer (3, 1) is full: it becomes the older, 2 is dropped
    expect(map.get(2)).toBeUndefined();
    expect(map.get(1)).toBe('a');
    expect(map.get(3)).toBe('c');
    expect(map.size).toBeLessThanOrEqual(4);
    map.shrink();
    expect(map.size).toBeLessThanOrEqual(2);
  });
});
