import {
  type Hashes,
  LT_HASH_BYTES,
  type LtHash,
  type LtHashElement,
  ltHashElement,
  ltHashElementOf,
} from '@chain/crypto';
import type { BlockChanges } from './block-changes';
import { encodeProducerList } from './producer-list';
import { RecentMap } from './recent-map';

/**
 * The state root: a commitment to every entry of the state at a height, so that a snapshot can be
 * checked against one header. The entries (every account, every state-space entry, the producer
 * set) are summed into an LtHash16 vector (`@chain/crypto`'s `LtHash`), which each block moves by
 * its changes only (remove the value before, add the value after); the header carries
 * SHA-256(ROOT_TAG || vector). docs/wire-format.md ("State root") specifies it byte by byte.
 */

const ascii = (text: string) => new TextEncoder().encode(text);

/** Prefixed to every entry's encoding before it is hashed: the elements of no other use collide. */
export const STATE_ENTRY_TAG = ascii('chain-node/state-entry/1');
/** Prefixed to the vector for the header's state root. */
export const STATE_ROOT_TAG = ascii('chain-node/state-root/1');

/** What an entry is (its encoding's byte after the tag). */
export const LATTICE_ACCOUNT = 1;
export const LATTICE_SPACE = 2;
export const LATTICE_PRODUCERS = 3;

const utf8 = new TextEncoder();
const TAG = STATE_ENTRY_TAG.length;

/** `tag || 0x01 || number u32 BE || account encoding`. */
export function encodeAccountEntry(number: number, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(TAG + 5 + value.length);
  out.set(STATE_ENTRY_TAG, 0);
  out[TAG] = LATTICE_ACCOUNT;
  out[TAG + 1] = number >>> 24;
  out[TAG + 2] = number >>> 16;
  out[TAG + 3] = number >>> 8;
  out[TAG + 4] = number;
  out.set(value, TAG + 5);
  return out;
}

/** `tag || 0x02 || u16 BE len || space (UTF-8) || u16 BE len || key (UTF-8) || value`. */
export function encodeSpaceEntry(space: string, key: string, value: Uint8Array): Uint8Array {
  const name = utf8.encode(space);
  const keyBytes = utf8.encode(key);
  const out = new Uint8Array(TAG + 5 + name.length + keyBytes.length + value.length);
  out.set(STATE_ENTRY_TAG, 0);
  let at = TAG;
  out[at++] = LATTICE_SPACE;
  out[at++] = name.length >>> 8;
  out[at++] = name.length;
  out.set(name, at);
  at += name.length;
  out[at++] = keyBytes.length >>> 8;
  out[at++] = keyBytes.length;
  out.set(keyBytes, at);
  out.set(value, at + keyBytes.length);
  return out;
}

/** `tag || 0x03 || producer list encoding` (encodeProducerList). */
export function encodeProducersEntry(value: Uint8Array): Uint8Array {
  const out = new Uint8Array(TAG + 1 + value.length);
  out.set(STATE_ENTRY_TAG, 0);
  out[TAG] = LATTICE_PRODUCERS;
  out.set(value, TAG + 1);
  return out;
}

/** SHA-256(ROOT_TAG || vector): what the header's state root (`four_hash`) is. */
export function stateRootOf(vector: LtHash, hashes: Hashes): Uint8Array {
  const bytes = vector.toBytes();
  const message = new Uint8Array(STATE_ROOT_TAG.length + bytes.length);
  message.set(STATE_ROOT_TAG, 0);
  message.set(bytes, STATE_ROOT_TAG.length);
  return hashes.sha256(message);
}

/**
 * Element vectors of recently written values, bounded: the value a block removes is most often
 * one a recent block added (a busy account's balance), whose element is then not hashed again.
 * 2 KiB each; a hit is checked against the value's bytes, so a stale entry is never used.
 */
export const ELEMENT_CACHE_ENTRIES = 4096;

interface Remembered {
  value: Uint8Array;
  element: LtHashElement;
}

/**
 * Element vectors of many entries at once, in order: BLAKE3 of each read to LT_HASH_BYTES bytes
 * (e.g. `VerifierPool.blake3Many`, on the worker threads).
 */
export type ElementHasher = (entries: readonly Uint8Array[]) => Promise<Uint8Array[]>;

/**
 * Which entry an element is of: an account by its number (a number key costs no string to build
 * and hash), a space entry `s<space>\0<key>`, the producer set 'p'.
 */
type EntryId = number | string;

/** One element a block's changes remove or add. */
interface Term {
  id: EntryId;
  value: Uint8Array;
  encode: () => Uint8Array;
  add: boolean;
}

/** Moves state vectors by changes, remembering recent elements (one per entry). */
export class StateLattice {
  private readonly recent: RecentMap<EntryId, Remembered>;

  constructor(
    private readonly hashes: Hashes,
    capacity = ELEMENT_CACHE_ENTRIES,
  ) {
    this.recent = new RecentMap(capacity);
  }

  private element(id: EntryId, value: Uint8Array, encode: () => Uint8Array): LtHashElement {
    const known = this.known(id, value);
    if (known !== undefined) return known;
    const element = ltHashElement(this.hashes, encode());
    this.recent.set(id, { value, element });
    return element;
  }

  private known(id: EntryId, value: Uint8Array): LtHashElement | undefined {
    const known = this.recent.get(id);
    return known !== undefined && sameBytes(known.value, value) ? known.element : undefined;
  }

  /** Forgets every remembered element (memory is short). */
  clear(): void {
    this.recent.clear();
  }

  account(number: number, value: Uint8Array): LtHashElement {
    return this.element(number, value, () => encodeAccountEntry(number, value));
  }

  space(space: string, key: string, value: Uint8Array): LtHashElement {
    return this.element(`s${space}\u0000${key}`, value, () => encodeSpaceEntry(space, key, value));
  }

  producers(value: Uint8Array): LtHashElement {
    return this.element('p', value, () => encodeProducersEntry(value));
  }

  /** The vector after a block's changes, from the vector before (which is left as it was). */
  apply(vector: LtHash, changes: BlockChanges): LtHash {
    const terms = termsOf(changes);
    const elements = terms.map((t) => this.known(t.id, t.value));
    for (let i = 0; i < terms.length; i++) {
      elements[i] ??= ltHashElement(this.hashes, terms[i]!.encode());
    }
    return this.sum(vector, terms, elements as LtHashElement[]);
  }

  /**
   * `apply` with the elements not remembered computed by `hashMany` in one batch (on the worker
   * threads while the calling thread takes its share). The elements remembered are taken before
   * the batch, so what happens meanwhile cannot change the result.
   */
  async applyWith(vector: LtHash, changes: BlockChanges, hashMany: ElementHasher): Promise<LtHash> {
    const terms = termsOf(changes);
    const elements = terms.map((t) => this.known(t.id, t.value));
    const missing: number[] = [];
    for (let i = 0; i < terms.length; i++) if (elements[i] === undefined) missing.push(i);
    const computed = await hashMany(missing.map((i) => terms[i]!.encode()));
    // The elements of values added are remembered: copied out of the batch's buffer, which would
    // otherwise stay alive for one of them, into one buffer for the block rather than one each.
    let added = 0;
    for (const i of missing) if (terms[i]!.add) added++;
    const kept = new Uint32Array(added * (LT_HASH_BYTES / 4));
    let at = 0;
    for (let j = 0; j < missing.length; j++) {
      const i = missing[j]!;
      const element = ltHashElementOf(computed[j]!);
      if (!terms[i]!.add) elements[i] = element;
      else {
        const copy = kept.subarray(at, at + element.length);
        copy.set(element);
        at += element.length;
        elements[i] = copy;
      }
    }
    return this.sum(vector, terms, elements as LtHashElement[]);
  }

  /** Sums the terms into a copy of `vector`; the values added are remembered for later blocks. */
  private sum(vector: LtHash, terms: readonly Term[], elements: readonly LtHashElement[]): LtHash {
    const next = vector.copy();
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      if (term.add) {
        next.add(elements[i]!);
        this.recent.set(term.id, { value: term.value, element: elements[i]! });
      } else next.remove(elements[i]!);
    }
    return next;
  }
}

/**
 * The elements a block's changes remove (values before) and add (values after). An entry left
 * with the bytes it had contributes nothing: its removal and addition would cancel.
 */
function termsOf(changes: BlockChanges): Term[] {
  const terms: Term[] = [];
  const push = (
    id: EntryId,
    before: Uint8Array | undefined,
    after: Uint8Array | undefined,
    encode: (value: Uint8Array) => Uint8Array,
  ) => {
    if (before !== undefined && after !== undefined && sameBytes(before, after)) return;
    if (before !== undefined)
      terms.push({ id, value: before, encode: () => encode(before), add: false });
    if (after !== undefined)
      terms.push({ id, value: after, encode: () => encode(after), add: true });
  };
  for (const a of changes.accounts) {
    push(a.number, a.before, a.afterBytes, (value) => encodeAccountEntry(a.number, value));
  }
  for (const s of changes.spaces) {
    push(`s${s.space}\u0000${s.key}`, s.before, s.afterBytes, (value) =>
      encodeSpaceEntry(s.space, s.key, value),
    );
  }
  if (changes.producers !== undefined) {
    const { before, after } = changes.producers;
    push('p', encodeProducerList(before), encodeProducerList(after), encodeProducersEntry);
  }
  return terms;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
