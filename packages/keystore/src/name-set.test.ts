import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNameSet, nameHash } from './name-set';

describe('the set of indexed names', () => {
  it('answers as a Set of the names would, through adds and deletes past its merges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 50 }),
        fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 12 })), { maxLength: 200 }),
        (initial, changes) => {
          const set = createNameSet(initial.map(nameHash));
          const expected = new Set(initial);
          for (const [add, name] of changes) {
            if (add) {
              set.add(name);
              expected.add(name);
            } else {
              set.delete(name);
              expected.delete(name);
            }
          }
          for (const name of [...initial, ...changes.map(([, name]) => name)]) {
            expect(set.has(name), name).toBe(expected.has(name));
          }
        },
      ),
    );
  });

  it('keeps 100,000 names apart, and merges its additions', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `UTC--${i}--CH${i.toString(16)}.json`);
    const set = createNameSet(names.slice(0, 50_000).map(nameHash));
    for (const name of names.slice(50_000)) set.add(name);
    expect(names.every((name) => set.has(name))).toBe(true);
    expect(set.has('UTC--100000--CH186a0.json')).toBe(false);
    expect(new Set(names.map(nameHash)).size).toBe(names.length);
    expect(Number.isSafeInteger(nameHash(names[0]!))).toBe(true);
  });
});
