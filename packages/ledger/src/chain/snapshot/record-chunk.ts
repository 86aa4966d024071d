import { DecodeError } from '../../errors';

/**
 * A chunk of snapshot records as a snapshot file and the P2P snapshot protocol carry it:
 * `u32be records || (u32be length || record)*` (a record: snapshot-export.ts).
 */
export const CHUNK_RECORDS = 4096;

export function encodeRecordChunk(records: readonly Uint8Array[]): Uint8Array {
  let size = 4;
  for (const record of records) size += 4 + record.length;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, records.length);
  let at = 4;
  for (const record of records) {
    view.setUint32(at, record.length);
    bytes.set(record, at + 4);
    at += 4 + record.length;
  }
  return bytes;
}

/** The records of a chunk (views into `bytes`); BAD_SNAPSHOT when it does not parse. */
export function decodeRecordChunk(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const damaged = () =>
    new DecodeError('BAD_SNAPSHOT', 'a chunk of snapshot records does not parse');
  if (bytes.length < 4) throw damaged();
  const count = view.getUint32(0);
  const records: Uint8Array[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 4 > bytes.length) throw damaged();
    const length = view.getUint32(at);
    if (length === 0 || at + 4 + length > bytes.length) throw damaged();
    records.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  if (at !== bytes.length) throw damaged();
  return records;
}
