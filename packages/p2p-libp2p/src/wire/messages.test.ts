import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locatorHeights } from '../sync/blocks-client';
import {
  decodeBlocksRequest,
  decodeBlocksResponse,
  decodeHello,
  decodePeerList,
  decodeSnapshotManifest,
  decodeSnapshotRequest,
  decodeSnapshotResponse,
  encodeBlocksRequest,
  encodeBlocksResponse,
  encodeHello,
  encodePeerList,
  encodeSnapshotManifest,
  encodeSnapshotRequest,
  encodeSnapshotResponse,
  type Hello,
} from './messages';

const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
const tip = fc.record({
  height: fc.nat({ max: 0xffffffff }),
  hash,
  weight: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
});

describe('wire messages', () => {
  it('hello round-trips', () => {
    fc.assert(
      fc.property(
        fc.record({
          genesisHash: hash,
          network: fc.string({ maxLength: 40 }),
          appVersion: fc.string({ maxLength: 20 }),
          netVer: fc.nat({ max: 0xffff }),
          netVerA: fc.nat({ max: 0xffff }),
          timestamp: fc.nat({ max: 0xffffffff }),
          listenPort: fc.nat({ max: 0xffff }),
          head: tip,
        }),
        fc.option(
          fc.record({
            operations: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
            snapshotRecords: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
          }),
          { nil: undefined },
        ),
        (plain: Hello, work) => {
          const hello = work === undefined ? plain : { ...plain, work };
          expect(decodeHello(encodeHello(hello))).toEqual(hello);
        },
      ),
    );
  });

  it('hello: the work after the tip is optional (older nodes send none), and whole when sent', () => {
    const plain: Hello = {
      genesisHash: new Uint8Array(32).fill(1),
      network: 'dev',
      appVersion: '0.1.0',
      netVer: 1,
      netVerA: 0,
      timestamp: 1_700_000_000,
      listenPort: 9714,
      head: { height: 93, hash: new Uint8Array(32).fill(2), weight: 186 },
    };
    const old = encodeHello(plain);
    const withWork = encodeHello({
      ...plain,
      work: { operations: 300_000, snapshotRecords: 300_004 },
    });
    // The same bytes as before the field, then 16 more.
    expect(withWork.length).toBe(old.length + 16);
    expect(Buffer.from(withWork.subarray(0, old.length))).toEqual(Buffer.from(old));
    expect(decodeHello(old).work).toBeUndefined();
    expect(decodeHello(withWork).work).toEqual({ operations: 300_000, snapshotRecords: 300_004 });
    expect(() => decodeHello(withWork.subarray(0, old.length + 8))).toThrow(/snapshot records/);
    expect(() => decodeHello(new Uint8Array([...withWork, 0]))).toThrow();
  });

  it('blocks request and response round-trip; a locator is 1 to 64 hashes', () => {
    fc.assert(
      fc.property(
        fc.array(hash, { minLength: 1, maxLength: 64 }),
        fc.nat({ max: 0xffffffff }),
        fc.nat({ max: 0xffffffff }),
        (locator, maxBlocks, maxBytes) => {
          const request = { locator, maxBlocks, maxBytes };
          expect(decodeBlocksRequest(encodeBlocksRequest(request))).toEqual(request);
        },
      ),
    );
    expect(() =>
      decodeBlocksRequest(encodeBlocksRequest({ locator: [], maxBlocks: 1, maxBytes: 1 })),
    ).toThrow(RangeError);
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.nat({ max: 0xffffffff }),
        tip,
        fc.nat({ max: 0xffffffff }),
        fc.nat({ max: 0xffffffff }),
        (found, forkHeight, head, count, historyStart) => {
          const response = { found, forkHeight, head, count, historyStart };
          expect(decodeBlocksResponse(encodeBlocksResponse(response))).toEqual(response);
        },
      ),
    );
  });

  it('snapshot requests, responses and manifests round-trip', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.nat({ max: 0xffffffff }),
        fc.nat({ max: 0xffffffff }),
        fc.nat({ max: 0xffffffff }),
        (kind, height, index, count) => {
          const request = { kind, height, index, count };
          expect(decodeSnapshotRequest(encodeSnapshotRequest(request))).toEqual(request);
        },
      ),
    );
    expect(() =>
      decodeSnapshotRequest(encodeSnapshotRequest({ kind: 9, height: 0, index: 0, count: 0 })),
    ).toThrow(RangeError);
    const response = { found: true, count: 3 };
    expect(decodeSnapshotResponse(encodeSnapshotResponse(response))).toEqual(response);
    const manifest = {
      height: 7,
      hash: new Uint8Array(32).fill(1),
      records: 2 ** 40 + 3,
      chunkHashes: [new Uint8Array(32).fill(2), new Uint8Array(32).fill(3)],
    };
    expect(decodeSnapshotManifest(encodeSnapshotManifest(manifest))).toEqual(manifest);
    // A manifest whose chunk count claims more hashes than it holds is refused, not read past.
    const cut = encodeSnapshotManifest(manifest).slice(0, -32);
    expect(() => decodeSnapshotManifest(cut)).toThrow(RangeError);
  });

  it('peer lists round-trip', () => {
    const peers = [
      { ip: '10.0.0.1', port: 9714 },
      { ip: '::1', port: 1 },
    ];
    expect(decodePeerList(encodePeerList(peers))).toEqual(peers);
  });

  it('decoders refuse arbitrary bytes with an error, and accept only canonical encodings', () => {
    const codecs: Array<[(b: Uint8Array) => unknown, (m: never) => Uint8Array]> = [
      [decodeHello, encodeHello],
      [decodeBlocksRequest, encodeBlocksRequest],
      [decodeBlocksResponse, encodeBlocksResponse],
      [decodePeerList, encodePeerList],
    ];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        for (const [decode, encode] of codecs) {
          let message: unknown;
          try {
            message = decode(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            continue;
          }
          expect(encode(message as never)).toEqual(bytes);
        }
      }),
    );
  });
});

describe('block locator', () => {
  it('holds the last ten heights, then doubling steps back, and always genesis', () => {
    expect(locatorHeights(0)).toEqual([0]);
    expect(locatorHeights(5)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(locatorHeights(100)).toEqual([
      100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 89, 85, 77, 61, 29, 0,
    ]);
    const long = locatorHeights(2 ** 31);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long.at(-1)).toBe(0);
  });
});
