import { equalBytes } from '@chain/crypto';
import type { ProducerKey } from '../block/block';
import { ByteReader } from '../codec/byte-reader';
import type { StateLayer } from './state-layer';

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

/**
 * The producer set a block's header carries (BlockHeader.producers): the members after the block
 * with their keys when the block changed the members (`membersChanged`) or the key of a member
 * (`layer` holds the block's changes over the state before it); empty otherwise.
 */
export function carriedProducers(layer: StateLayer, membersChanged: boolean): ProducerKey[] {
  const after = layer.producers();
  const before = layer.parent;
  const keyChanged = after.some((number) => {
    const changed = layer.accounts.get(number);
    return changed !== undefined && !sameKey(changed.publicKey, before?.account(number)?.publicKey);
  });
  if (!membersChanged && !keyChanged) return [];
  return after.map((account) => ({
    account,
    publicKey: layer.account(account)?.publicKey ?? null,
  }));
}

function sameKey(a: Uint8Array | null, b: Uint8Array | null | undefined): boolean {
  if (a === null || b == null) return a === (b ?? null);
  return equalBytes(a, b);
}
