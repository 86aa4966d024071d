import { ByteReader, ByteWriter } from '@chain/ledger';
import { LIMITS } from './limits';

/**
 * The binary messages of the chain's own protocols. All integers little-endian; every message starts
 * with a version byte so a later protocol can tell old peers apart.
 */
const MESSAGE_VERSION = 1;

export interface TipInfo {
  height: number;
  hash: Uint8Array;
  /** Cumulative weight (fork choice). */
  weight: number;
}

/**
 * What a node joining from block 0 would do to catch up with the sender: replay its operations, or
 * copy the records of the snapshot it serves (snap-sync.ts weighs one against the other).
 */
export interface HelloWork {
  /** Operations in the sender's blocks (about: Chain.operationCount); 0 = not known. */
  operations: number;
  /** Records of the snapshot the sender serves (its state entries then); 0 = it serves none. */
  snapshotRecords: number;
}

/**
 * The hello carries `work` only to a peer whose own hello said `netVerA` >= this: a node that
 * knows of no such field refuses a hello with bytes after the tip.
 */
export const HELLO_WORK_VER_A = 1;

/** `/chain/hello/1`: who a peer is and where its chain stands. */
export interface Hello {
  genesisHash: Uint8Array;
  network: string;
  appVersion: string;
  netVer: number;
  netVerA: number;
  /** Unix seconds when sent (time difference between the peers). */
  timestamp: number;
  /** TCP port the peer accepts connections on (0: none). */
  listenPort: number;
  head: TipInfo;
  /** After the tip, to peers of `netVerA` >= HELLO_WORK_VER_A only (absent from older nodes). */
  work?: HelloWork;
}

function writeU53(w: ByteWriter, v: number): void {
  w.u32(v % 2 ** 32).u32(Math.floor(v / 2 ** 32));
}

function readU53(r: ByteReader, what: string): number {
  const low = r.u32(what);
  const high = r.u32(what);
  if (high >= 2 ** 21) throw new RangeError(`${what} is out of range`);
  return high * 2 ** 32 + low;
}

function writeTip(w: ByteWriter, tip: TipInfo): void {
  w.u32(tip.height).bytes(tip.hash);
  writeU53(w, tip.weight);
}

function readTip(r: ByteReader): TipInfo {
  const height = r.u32('head height');
  const hash = r.bytesCopy(32, 'head hash');
  return { height, hash, weight: readU53(r, 'head weight') };
}

function readVersion(r: ByteReader, what: string): void {
  const version = r.u8(`${what} version`);
  if (version !== MESSAGE_VERSION) throw new RangeError(`${what} version ${version} is unknown`);
}

export function encodeHello(hello: Hello): Uint8Array {
  const w = new ByteWriter(160);
  w.u8(MESSAGE_VERSION).bytes(hello.genesisHash).string16(hello.network);
  w.string16(hello.appVersion).u16(hello.netVer).u16(hello.netVerA);
  w.u32(hello.timestamp).u16(hello.listenPort);
  writeTip(w, hello.head);
  if (hello.work !== undefined) {
    writeU53(w, hello.work.operations);
    writeU53(w, hello.work.snapshotRecords);
  }
  return w.finish();
}

export function decodeHello(bytes: Uint8Array): Hello {
  const r = new ByteReader(bytes);
  readVersion(r, 'hello');
  const hello: Hello = {
    genesisHash: r.bytesCopy(32, 'genesis hash'),
    network: r.string16('network'),
    appVersion: r.string16('app version'),
    netVer: r.u16('ver'),
    netVerA: r.u16('ver_a'),
    timestamp: r.u32('timestamp'),
    listenPort: r.u16('listen port'),
    head: readTip(r),
  };
  if (r.remaining > 0) {
    hello.work = {
      operations: readU53(r, 'operations'),
      snapshotRecords: readU53(r, 'snapshot records'),
    };
  }
  r.end('hello');
  return hello;
}

/** `/chain/blocks/1` request: "here is where my chain stands; send what follows". */
interface BlocksRequest {
  /** Hashes of this node's blocks, newest first, ending with genesis (Bitcoin-style locator). */
  locator: Uint8Array[];
  maxBlocks: number;
  maxBytes: number;
}

export function encodeBlocksRequest(request: BlocksRequest): Uint8Array {
  const w = new ByteWriter(16 + 32 * request.locator.length);
  w.u8(MESSAGE_VERSION).u16(request.locator.length);
  for (const hash of request.locator) w.bytes(hash);
  w.u32(request.maxBlocks).u32(request.maxBytes);
  return w.finish();
}

export function decodeBlocksRequest(bytes: Uint8Array): BlocksRequest {
  const r = new ByteReader(bytes);
  readVersion(r, 'blocks request');
  const count = r.u16('locator length');
  if (count === 0 || count > LIMITS.locatorHashes) {
    throw new RangeError(`a locator holds 1 to ${LIMITS.locatorHashes} hashes, not ${count}`);
  }
  const locator: Uint8Array[] = [];
  for (let i = 0; i < count; i++) locator.push(r.bytesCopy(32, 'locator hash'));
  const request = { locator, maxBlocks: r.u32('max blocks'), maxBytes: r.u32('max bytes') };
  r.end('blocks request');
  return request;
}

/**
 * `/chain/blocks/1` response header, followed by `count` frames of one block each (heights
 * forkHeight+1, forkHeight+2, ...). `found` false: no locator hash is on the responder's chain.
 */
export interface BlocksResponse {
  found: boolean;
  forkHeight: number;
  head: TipInfo;
  count: number;
  /**
   * The first block the responder holds (above 0 when it joined from a snapshot): it cannot send
   * the blocks after a fork height below it. Absent (0) in responses of older nodes.
   */
  historyStart: number;
}

export function encodeBlocksResponse(response: BlocksResponse): Uint8Array {
  const w = new ByteWriter(64);
  w.u8(MESSAGE_VERSION)
    .u8(response.found ? 1 : 0)
    .u32(response.forkHeight);
  writeTip(w, response.head);
  w.u32(response.count).u32(response.historyStart);
  return w.finish();
}

export function decodeBlocksResponse(bytes: Uint8Array): BlocksResponse {
  const r = new ByteReader(bytes);
  readVersion(r, 'blocks response');
  const response = {
    found: r.u8('found') === 1,
    forkHeight: r.u32('fork height'),
    head: readTip(r),
    count: r.u32('count'),
    historyStart: r.remaining >= 4 ? r.u32('history start') : 0,
  };
  r.end('blocks response');
  return response;
}

/** `/chain/peers/1` response: peer addresses the responder knows (peer exchange). */
export function encodePeerList(peers: ReadonlyArray<{ ip: string; port: number }>): Uint8Array {
  const w = new ByteWriter(8 + peers.length * 48);
  w.u8(MESSAGE_VERSION).u16(peers.length);
  for (const peer of peers) w.string16(peer.ip).u16(peer.port);
  return w.finish();
}

export function decodePeerList(bytes: Uint8Array): Array<{ ip: string; port: number }> {
  const r = new ByteReader(bytes);
  readVersion(r, 'peer list');
  const count = r.u16('peer count');
  const peers: Array<{ ip: string; port: number }> = [];
  for (let i = 0; i < count; i++) peers.push({ ip: r.string16('ip'), port: r.u16('port') });
  r.end('peer list');
  return peers;
}

/** `/chain/snapshot/1` request kinds. */
export const SNAPSHOT_MANIFEST = 1;
export const SNAPSHOT_HEADERS = 2;
export const SNAPSHOT_BLOCK = 3;
export const SNAPSHOT_CHUNK = 4;

/**
 * `/chain/snapshot/1` request: a manifest (the latest snapshot served: height 0), `count` headers
 * from block `index` of the snapshot at `height`, its block, or its chunk `index`.
 */
export interface SnapshotRequest {
  kind: number;
  height: number;
  index: number;
  count: number;
}

export function encodeSnapshotRequest(request: SnapshotRequest): Uint8Array {
  const w = new ByteWriter(16);
  w.u8(MESSAGE_VERSION).u8(request.kind).u32(request.height).u32(request.index).u32(request.count);
  return w.finish();
}

export function decodeSnapshotRequest(bytes: Uint8Array): SnapshotRequest {
  const r = new ByteReader(bytes);
  readVersion(r, 'snapshot request');
  const kind = r.u8('kind');
  if (kind < SNAPSHOT_MANIFEST || kind > SNAPSHOT_CHUNK) {
    throw new RangeError(`snapshot request kind ${kind} is unknown`);
  }
  const request = { kind, height: r.u32('height'), index: r.u32('index'), count: r.u32('count') };
  r.end('snapshot request');
  return request;
}

/**
 * `/chain/snapshot/1` response, then `count` frames: the manifest, headers, the block or the chunk.
 * `found` false (count 0): no snapshot at that height is served (any more).
 */
export interface SnapshotResponse {
  found: boolean;
  count: number;
}

export function encodeSnapshotResponse(response: SnapshotResponse): Uint8Array {
  return new ByteWriter(8)
    .u8(MESSAGE_VERSION)
    .u8(response.found ? 1 : 0)
    .u32(response.count)
    .finish();
}

export function decodeSnapshotResponse(bytes: Uint8Array): SnapshotResponse {
  const r = new ByteReader(bytes);
  readVersion(r, 'snapshot response');
  const response = { found: r.u8('found') === 1, count: r.u32('count') };
  r.end('snapshot response');
  return response;
}

/** A served snapshot's manifest: what a joining node cross-checks between peers. */
export interface SnapshotManifest {
  height: number;
  hash: Uint8Array;
  records: number;
  chunkHashes: readonly Uint8Array[];
}

export function encodeSnapshotManifest(manifest: SnapshotManifest): Uint8Array {
  const w = new ByteWriter(56 + 32 * manifest.chunkHashes.length);
  w.u8(MESSAGE_VERSION).u32(manifest.height).bytes(manifest.hash);
  writeU53(w, manifest.records);
  w.u32(manifest.chunkHashes.length);
  for (const hash of manifest.chunkHashes) w.bytes(hash);
  return w.finish();
}

export function decodeSnapshotManifest(bytes: Uint8Array): SnapshotManifest {
  const r = new ByteReader(bytes);
  readVersion(r, 'snapshot manifest');
  const height = r.u32('height');
  const hash = r.bytesCopy(32, 'block hash');
  const records = readU53(r, 'records');
  const count = r.u32('chunk count');
  if (count * 32 > r.remaining) throw new RangeError(`a manifest of ${count} chunks is cut short`);
  const chunkHashes: Uint8Array[] = [];
  for (let i = 0; i < count; i++) chunkHashes.push(r.bytesCopy(32, 'chunk hash'));
  r.end('snapshot manifest');
  return { height, hash, records, chunkHashes };
}
