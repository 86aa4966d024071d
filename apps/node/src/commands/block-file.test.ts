import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_FILE_HEADER_BYTES,
  BlockFileError,
  BlockFileReader,
  encodeFrame,
  encodeHeader,
  type FileBlock,
} from './block-file';

const GENESIS = Uint8Array.from({ length: 32 }, (_, i) => i);

function blockOf(height: number, size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (height * 31 + i) & 0xff);
}

function fileOf(blocks: Uint8Array[], firstHeight = 1): Uint8Array {
  const parts = [
    encodeHeader({ genesisHash: GENESIS, firstHeight, count: blocks.length }),
    ...blocks.map(encodeFrame),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The file in chunks of `size` bytes, as a read stream would hand it over. */
async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(bytes: Uint8Array, chunk = 7): Promise<FileBlock[]> {
  const reader = new BlockFileReader(chunks(bytes, chunk));
  const out: FileBlock[] = [];
  for await (const block of reader.blocks()) out.push({ ...block, bytes: block.bytes.slice() });
  return out;
}

async function refusal(bytes: Uint8Array): Promise<BlockFileError> {
  try {
    await readAll(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(BlockFileError);
    return error as BlockFileError;
  }
  throw new Error('the file was accepted');
}

describe('block file', () => {
  const blocks = [blockOf(5, 300), blockOf(6, 1), blockOf(7, 5000)];
  const file = fileOf(blocks, 5);

  it('reads back what was written, in any chunking, with heights and frame offsets', async () => {
    for (const chunk of [1, 7, 4096, file.length]) {
      const read = await readAll(file, chunk);
      expect(read.map((b) => b.height)).toEqual([5, 6, 7]);
      expect(read.map((b) => b.bytes)).toEqual(blocks);
      expect(read.map((b) => b.offset)).toEqual([
        BLOCK_FILE_HEADER_BYTES,
        BLOCK_FILE_HEADER_BYTES + 308,
        BLOCK_FILE_HEADER_BYTES + 308 + 9,
      ]);
    }
    const header = await new BlockFileReader(chunks(file, 3)).header();
    expect(header).toEqual({ genesisHash: GENESIS, firstHeight: 5, count: 3 });
  });

  it('refuses any one damaged byte, naming the block and its frame', async () => {
    for (const at of [
      BLOCK_FILE_HEADER_BYTES + 10,
      BLOCK_FILE_HEADER_BYTES + 308 + 4,
      file.length - 1,
    ]) {
      const bad = file.slice();
      bad[at]! ^= 0x01;
      const error = await refusal(bad);
      expect(error.message).toMatch(/^block [5-7] \(frame at bytes? \d+/);
      expect(error.message).toContain('checksum mismatch');
    }
    const bad = file.slice();
    bad[BLOCK_FILE_HEADER_BYTES + 308 + 4]! ^= 0x01;
    const error = await refusal(bad);
    expect(error.height).toBe(6);
    expect(error.offset).toBe(BLOCK_FILE_HEADER_BYTES + 308);
  });

  it('refuses a damaged length without reading past it', async () => {
    const bad = file.slice();
    bad[BLOCK_FILE_HEADER_BYTES] = 0xff; // length becomes > 4 GB
    const error = await refusal(bad);
    expect(error.message).toBe(
      `block 5 (frame at byte ${BLOCK_FILE_HEADER_BYTES}) is damaged: impossible length 4278190380`,
    );
  });

  it('refuses a truncated file, inside a frame or at a frame boundary', async () => {
    const inside = await refusal(file.subarray(0, BLOCK_FILE_HEADER_BYTES + 308 + 5));
    expect(inside.message).toBe(
      `the file is truncated: it ends at byte ${BLOCK_FILE_HEADER_BYTES + 313}, inside block 6 ` +
        `(frame at byte ${BLOCK_FILE_HEADER_BYTES + 308}); the header announces 3 blocks`,
    );
    const boundary = await refusal(file.subarray(0, BLOCK_FILE_HEADER_BYTES + 308));
    expect(boundary.message).toContain('it ends at byte 364, inside block 6');
    const header = await refusal(file.subarray(0, 20));
    expect(header.message).toBe('the file ends at byte 20, inside its 56-byte header');
  });

  it('refuses trailing bytes, a foreign file, a damaged header and an unknown version', async () => {
    const trailing = new Uint8Array(file.length + 1);
    trailing.set(file);
    expect((await refusal(trailing)).message).toContain(`unexpected bytes at byte ${file.length}`);
    expect(
      (await refusal(new TextEncoder().encode('{"not":"a block file"}'.repeat(4)))).message,
    ).toBe('not a chain-node block file (wrong magic at byte 0)');
    const header = file.slice();
    header[20]! ^= 1;
    expect((await refusal(header)).message).toBe(
      'the header is damaged (checksum mismatch at byte 52)',
    );
    const future = file.slice();
    future[9] = 2;
    new DataView(future.buffer).setUint32(52, crc32(future.subarray(0, 52)));
    expect((await refusal(future)).message).toBe(
      'block file version 2 is not supported (this chain-node reads version 1)',
    );
  });
});
