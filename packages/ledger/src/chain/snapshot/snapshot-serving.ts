import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesToHex, equalBytes } from '@chain/crypto';
import { decodeBlock } from '../../block/block';
import { ByteReader } from '../../codec/byte-reader';
import { ByteWriter } from '../../codec/byte-writer';
import type { ChainCore } from '../chain-core';
import { stateRecords } from '../storage/state-records';
import { CHUNK_RECORDS, encodeRecordChunk } from './record-chunk';
import { blockAt, signedHeaderAt } from './snapshot-export';

/**
 * A snapshot a running node serves to joining peers (snapshot sync): the chain's state as it stood
 * at one height, cut into chunks of CHUNK_RECORDS records whose SHA-256 hashes make its manifest.
 * The cut is the same on every node holding that height's state, so that a joining node can
 * cross-check the manifests of several peers.
 *
 * The chunks are written to a file as the manifest is computed (one pass over the state, through a
 * LevelDB snapshot while the node goes on), and the manifest beside them: serving a chunk is then a
 * read of the file, not a walk of the state, the state at that height need not be held in the
 * database, and a restarted node serves the same snapshot without a new pass. The headers and the
 * block come from the chain as it is, as long as the block is still its own (onChain).
 */
export interface ServedSnapshot {
  readonly height: number;
  readonly hash: Uint8Array;
  readonly records: number;
  /** SHA-256 of each chunk (encodeRecordChunk). */
  readonly chunkHashes: readonly Uint8Array[];
  /** `header || signature` of blocks `from` to `from + count - 1` (all below `height`). */
  headers(from: number, count: number): Promise<Uint8Array[]>;
  /** The block at `height`, whole. */
  block(): Promise<Uint8Array>;
  /** Chunk `index`, encoded (encodeRecordChunk), checked against its hash. */
  chunk(index: number): Promise<Uint8Array>;
  /** Whether the block at `height` is still the chain's (a reorganisation below it ends it). */
  onChain(): Promise<boolean>;
  /** Closes its file (idempotent). */
  close(): Promise<void>;
  /** Closes it and deletes its files. */
  remove(): Promise<void>;
}

export type ServingCore = Pick<
  ChainCore,
  'hashes' | 'headState' | 'historyFrom' | 'requireStore' | 'tasks'
>;

const MANIFEST_MAGIC = 0x43_48_53_4d; // "CHSM"
const MANIFEST_VERSION = 1;
const CHUNKS = '.chunks';
const MANIFEST = '.manifest';

interface Manifest {
  height: number;
  hash: Uint8Array;
  records: number;
  chunkHashes: Uint8Array[];
  /** The byte length of each chunk in the chunk file, where they follow each other. */
  chunkLengths: number[];
}

/**
 * Takes the head's snapshot: a LevelDB snapshot of the head, read once to write its chunks to
 * `dir` and compute its manifest, then released. `signal` stops the pass (a node shutting down).
 */
export async function serveSnapshot(
  core: ServingCore,
  dir: string,
  signal?: AbortSignal,
): Promise<ServedSnapshot> {
  const store = core.requireStore();
  // Between two commits: the head and the database view are the same block's.
  const { view, height, hash } = await core.tasks.run(async () => ({
    view: await store.snapshot(),
    height: core.headState.height,
    hash: core.headState.hash.slice(),
  }));
  await mkdir(dir, { recursive: true });
  const base = join(dir, fileBase(height, hash));
  const partial = `${base}.${randomBytes(4).toString('hex')}.partial`;
  const file = await open(partial, 'w');
  const manifest: Manifest = { height, hash, records: 0, chunkHashes: [], chunkLengths: [] };
  try {
    let chunk: Uint8Array[] = [];
    const flush = async () => {
      signal?.throwIfAborted();
      const bytes = encodeRecordChunk(chunk);
      manifest.chunkHashes.push(core.hashes.sha256(bytes));
      manifest.chunkLengths.push(bytes.length);
      await file.write(bytes);
      chunk = [];
    };
    for await (const [, record] of stateRecords(store, view)) {
      chunk.push(record);
      manifest.records++;
      if (chunk.length === CHUNK_RECORDS) await flush();
    }
    if (chunk.length > 0) await flush();
    await file.sync();
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await file.close();
    await view.close();
  }
  await rename(partial, `${base}${CHUNKS}`);
  await writeManifest(core, `${base}${MANIFEST}`, manifest);
  const served = await openServed(core, base, manifest);
  if (served === undefined) throw new Error(`the snapshot file ${base}${CHUNKS} is gone`);
  return served;
}

/**
 * The snapshots `dir` holds whose block is still the chain's, oldest first; the files of the
 * others, of unfinished ones and of damaged manifests are deleted.
 */
export async function servedSnapshots(core: ServingCore, dir: string): Promise<ServedSnapshot[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const kept: ServedSnapshot[] = [];
  const keptNames = new Set<string>();
  for (const name of names.filter((n) => n.endsWith(MANIFEST))) {
    const base = name.slice(0, -MANIFEST.length);
    const manifest = await readManifest(core, join(dir, name));
    const served =
      manifest === undefined ? undefined : await openServed(core, join(dir, base), manifest);
    if (served !== undefined && (await served.onChain())) {
      kept.push(served);
      keptNames.add(name).add(`${base}${CHUNKS}`);
    } else await served?.close();
  }
  for (const name of names) {
    if (!keptNames.has(name)) await rm(join(dir, name), { force: true });
  }
  return kept.sort((a, b) => a.height - b.height);
}

async function openServed(
  core: ServingCore,
  base: string,
  manifest: Manifest,
): Promise<ServedSnapshot | undefined> {
  let file: FileHandle;
  try {
    file = await open(`${base}${CHUNKS}`, 'r');
  } catch {
    return undefined;
  }
  const offsets: number[] = [];
  let size = 0;
  for (const length of manifest.chunkLengths) {
    offsets.push(size);
    size += length;
  }
  if ((await file.stat()).size !== size) {
    await file.close();
    return undefined;
  }
  const store = core.requireStore();
  const { height, hash } = manifest;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await file.close();
  };
  return {
    height,
    hash,
    records: manifest.records,
    chunkHashes: manifest.chunkHashes,
    async headers(from, count) {
      const out: Uint8Array[] = [];
      for (let h = from; h < Math.min(from + count, height); h++) {
        out.push(await signedHeaderAt(store, core, h));
      }
      return out;
    },
    block: () => blockAt(store, height),
    async chunk(index) {
      const length = manifest.chunkLengths[index];
      if (length === undefined) throw new RangeError(`chunk ${index} does not exist`);
      const bytes = new Uint8Array(length);
      const { bytesRead } = await file.read(bytes, 0, length, offsets[index]);
      // A damaged file must not make an honest node look like a liar: it is found here.
      if (
        bytesRead !== length ||
        !equalBytes(core.hashes.sha256(bytes), manifest.chunkHashes[index]!)
      ) {
        throw new Error(`chunk ${index} of the snapshot of block ${height} is damaged on disk`);
      }
      return bytes;
    },
    async onChain() {
      if (height > core.headState.height) return false;
      try {
        return equalBytes(decodeBlock(await blockAt(store, height), core.hashes).hash, hash);
      } catch {
        return false;
      }
    },
    close,
    async remove() {
      await close();
      await removeFiles(base);
    },
  };
}

function fileBase(height: number, hash: Uint8Array): string {
  return `snapshot-${height}-${bytesToHex(hash.subarray(0, 8))}`;
}

async function removeFiles(base: string): Promise<void> {
  await rm(`${base}${MANIFEST}`, { force: true });
  await rm(`${base}${CHUNKS}`, { force: true });
}

/** `magic || version || height || hash || records (u64) || count || (hash || length)* || sha256`. */
async function writeManifest(core: ServingCore, path: string, manifest: Manifest): Promise<void> {
  const w = new ByteWriter(64 + 36 * manifest.chunkHashes.length);
  w.u32(MANIFEST_MAGIC).u8(MANIFEST_VERSION).u32(manifest.height).bytes(manifest.hash);
  w.u32(Math.floor(manifest.records / 2 ** 32)).u32(manifest.records % 2 ** 32);
  w.u32(manifest.chunkHashes.length);
  manifest.chunkHashes.forEach((hash, i) => {
    w.bytes(hash).u32(manifest.chunkLengths[i]!);
  });
  const body = w.finish();
  const partial = `${path}.partial`;
  const file = await open(partial, 'w');
  try {
    await file.write(body);
    await file.write(core.hashes.sha256(body));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(partial, path);
}

async function readManifest(core: ServingCore, path: string): Promise<Manifest | undefined> {
  try {
    const bytes = new Uint8Array(await readFile(path));
    const body = bytes.subarray(0, bytes.length - 32);
    if (bytes.length < 32 || !equalBytes(core.hashes.sha256(body), bytes.subarray(body.length))) {
      return undefined;
    }
    const r = new ByteReader(body);
    if (r.u32() !== MANIFEST_MAGIC || r.u8() !== MANIFEST_VERSION) return undefined;
    const height = r.u32();
    const hash = r.bytesCopy(32);
    const records = r.u32() * 2 ** 32 + r.u32();
    const count = r.u32();
    const chunkHashes: Uint8Array[] = [];
    const chunkLengths: number[] = [];
    for (let i = 0; i < count; i++) {
      chunkHashes.push(r.bytesCopy(32));
      chunkLengths.push(r.u32());
    }
    r.end('snapshot manifest');
    return { height, hash, records, chunkHashes, chunkLengths };
  } catch {
    return undefined;
  }
}
