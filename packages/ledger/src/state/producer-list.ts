import { ByteReader } from '../codec/byte-reader';

/** The producer set as stored (META_PRODUCERS) and committed: `u32le count || u32le number*`. */
export function encodeProducerList(list: readonly number[]): Uint8Array {
  const out = new Uint8Array(4 + 4 * list.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, list.length, true);
  for (let i = 0; i < list.length; i++) view.setUint32(4 + 4 * i, list[i]!, true);
  return out;
}

/** DecodeError (not a RangeError) on damaged bytes, like every other decoder. */
export function decodeProducerList(bytes: Uint8Array): number[] {
  const r = new ByteReader(bytes);
  const out: number[] = [];
  for (let count = r.u32('producer count'); count > 0; count--) out.push(r.u32('producer'));
  r.end('producer list');
  return out;
}
