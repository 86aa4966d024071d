import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitProRata } from './pro-rata';

const claimsArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 12 })
  .chain((accounts) =>
    fc.tuple(
      fc.constant(accounts),
      fc.array(fc.bigInt({ min: 0n, max: 10n ** 24n }), {
        minLength: accounts.length,
        maxLength: accounts.length,
      }),
    ),
  )
  .map(([accounts, weights]) => accounts.map((account, i) => ({ account, weight: weights[i]! })));

describe('splitProRata', () => {
  it('gives the leftover unit to the lower account on equal remainders (hand computed)', () => {
    // 10 / 3 = 3 each, remainder 1 each: the one unit left goes to account 3.
    const claims = [7, 3, 5].map((account) => ({ account, weight: 1n }));
    expect(splitProRata(10n, claims)).toEqual([3n, 4n, 3n]);
  });

  it('gives leftover units to the largest remainders (hand computed)', () => {
    // 100 * (1, 2, 3) / 6 = 16.67, 33.33, 50: floors 16, 33, 50 leave 1 unit, remainders 4, 2, 0
    // (in sixths): the unit goes to the first claim.
    const claims = [1n, 2n, 3n].map((weight, i) => ({ account: i + 1, weight }));
    expect(splitProRata(100n, claims)).toEqual([17n, 33n, 50n]);
    // 7 * (5, 5, 1) / 11 = 3.18, 3.18, 0.64: floors 3, 3, 0; remainders 2, 2, 7: the last one wins.
    expect(
      splitProRata(7n, [
        { account: 9, weight: 5n },
        { account: 4, weight: 5n },
        { account: 1, weight: 1n },
      ]),
    ).toEqual([3n, 3n, 1n]);
  });

  it('splits nothing when the weights sum to zero', () => {
    expect(splitProRata(5n, [{ account: 1, weight: 0n }])).toEqual([0n]);
    expect(splitProRata(5n, [])).toEqual([]);
  });

  it('adds up to the total, each part within one unit above its exact share', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), claimsArb, (total, claims) => {
        const parts = splitProRata(total, claims);
        const sum = claims.reduce((a, c) => a + c.weight, 0n);
        if (sum === 0n) return parts.every((p) => p === 0n);
        expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
        claims.forEach((claim, i) => {
          const floor = (total * claim.weight) / sum;
          expect(parts[i]! - floor === 0n || parts[i]! - floor === 1n).toBe(true);
          if (claim.weight === 0n) expect(parts[i]).toBe(0n);
        });
        return true;
      }),
    );
  });

  it('does not depend on the order of the claims', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), claimsArb, (total, claims) => {
        const byAccount = (list: typeof claims) => {
          const parts = splitProRata(total, list);
          return new Map(list.map((c, i) => [c.account, parts[i]]));
        };
        expect(byAccount([...claims].reverse())).toEqual(byAccount(claims));
      }),
    );
  });
});
