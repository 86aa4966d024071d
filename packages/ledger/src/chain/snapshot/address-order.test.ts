import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressOrder } from './address-order';

describe('AddressOrder', () => {
  it('hands the address index back in the byte order of its database keys', () => {
    const prefix = Uint8Array.from([0x21, 0x61, 0x21]);
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 });
    // Addresses sharing their first two bytes land in one bucket: the sort inside it is exercised.
    const crowded = fc.tuple(fc.integer({ min: 0, max: 2 }), address).map(([first, rest]) => {
      const bytes = rest.slice();
      bytes[0] = first;
      bytes[1] = 7;
      return bytes;
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.oneof(address, crowded), { selector: (a) => a.join(',') }),
        (addresses) => {
          const order = new AddressOrder(addresses.length, prefix);
          for (const [i, a] of addresses.entries())
            order.add(a, Uint8Array.of(0, 0, i >> 8, i & 255));
          const out = [...order.sorted()].map(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
          const expected = addresses
            .map((a, i) => [Buffer.concat([prefix, a]), Buffer.from([0, 0, i >> 8, i & 255])])
            .sort(([a], [b]) => Buffer.compare(a!, b!));
          expect(out).toEqual(expected);
        },
      ),
    );
    expect(() => new AddressOrder(0, prefix).add(new Uint8Array(20), new Uint8Array(4))).toThrow(
      /more than the 0 accounts/,
    );
  });
});
