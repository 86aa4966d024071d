import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressOrder } from './address-order';

let parent = '';
beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'address-order-'));
});
afterAll(() => rm(parent, { recursive: true, force: true }));

describe('AddressOrder', () => {
  it('hands the address index back in the byte order of its database keys', async () => {
    const prefix = Uint8Array.from([0x21, 0x61, 0x21]);
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 });
    // Addresses sharing their first two bytes land in one bucket: the sort inside it is exercised.
    const crowded = fc.tuple(fc.integer({ min: 0, max: 2 }), address).map(([first, rest]) => {
      const bytes = rest.slice();
      bytes[0] = first;
      bytes[1] = 7;
      return bytes;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.oneof(address, crowded), { selector: (a) => a.join(',') }),
        async (addresses) => {
          const order = new AddressOrder(prefix, parent);
          for (const [i, a] of addresses.entries())
            order.add(a, Uint8Array.of(0, 0, i >> 8, i & 255));
          const out: Buffer[][] = [];
          for await (const [k, v] of order.sorted()) out.push([Buffer.from(k), Buffer.from(v)]);
          order.close();
          const expected = addresses
            .map((a, i) => [Buffer.concat([prefix, a]), Buffer.from([0, 0, i >> 8, i & 255])])
            .sort(([a], [b]) => Buffer.compare(a!, b!));
          expect(out).toEqual(expected);
        },
      ),
    );
  });

  it('spills to its files and sorts a crowded byte, then leaves nothing behind', async () => {
    const prefix = Uint8Array.of(9);
    const leftover = new AddressOrder(prefix, parent);
    leftover.add(new Uint8Array(20), new Uint8Array(4));
    // A restore cut short left its files: the next one removes them.
    const order = new AddressOrder(prefix, parent);
    expect(await readdir(parent)).toHaveLength(1);
    const addresses: Buffer[] = [];
    // 5,000 addresses starting 00 00: more than a file's buffer, one bucket of thousands.
    for (let i = 0; i < 5000; i++) {
      const address = Buffer.alloc(20);
      address.writeUInt32BE((i * 2654435761) >>> 0, 2);
      address.writeUInt32BE(i, 16);
      addresses.push(address);
      order.add(address, Uint8Array.of(0, 0, i >> 8, i & 255));
    }
    const out: string[] = [];
    for await (const [k] of order.sorted()) out.push(Buffer.from(k).toString('hex'));
    order.close();
    const expected = addresses
      .map((a) => Buffer.concat([prefix, a]))
      .sort(Buffer.compare)
      .map((k) => k.toString('hex'));
    expect(out).toEqual(expected);
    expect(await readdir(parent)).toEqual([]);
  });
});
