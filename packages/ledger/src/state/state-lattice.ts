import type { Hashes, LtHash } from '@chain/crypto';
import type { ChangedEntries } from './block-changes';
import { encodeProducerList } from './producer-list';
import { type Pause, runSteps, runStepsPaused, STEP_ITEMS } from './steps';

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

/** Moves state vectors by blocks' changes. */
export class StateLattice {
  constructor(private readonly hashes: Hashes) {}

  /**
   * The vector after a block's changes, from the vector before (which is left as it was): each
   * value before removed, each value after added, all hashed in one pass (LtHash.update). Recent
   * elements are not remembered: a before costs about 1 us to hash again, less than keeping
   * thousands of 2 KiB elements to look up and add (docs/performance.md).
   */
  apply(vector: LtHash, changes: ChangedEntries): LtHash {
    return runSteps(this.applySteps(vector, changes, Number.POSITIVE_INFINITY));
  }

  /**
   * `apply` hashing STEP_ITEMS elements at a time with `pause()` between (a block's commit: the
   * vector of 10,000 changes is about 40 ms of hashing). The sum is the same: LtHash adds.
   */
  applyPaused(vector: LtHash, changes: ChangedEntries, pause: Pause): Promise<LtHash> {
    return runStepsPaused(this.applySteps(vector, changes, STEP_ITEMS), pause);
  }

  private *applySteps(
    vector: LtHash,
    changes: ChangedEntries,
    stepItems: number,
  ): Generator<void, LtHash> {
    const out = vector.copy();
    let added: Uint8Array[] = [];
    let removed: Uint8Array[] = [];
    const flush = () => {
      out.update(added, removed, this.hashes);
      added = [];
      removed = [];
    };
    const push = (
      before: Uint8Array | undefined,
      after: Uint8Array | undefined,
      encode: (value: Uint8Array) => Uint8Array,
    ) => {
      // An entry left with the bytes it had contributes nothing: its removal and addition cancel.
      if (before !== undefined && after !== undefined && sameBytes(before, after)) return;
      if (before !== undefined) removed.push(encode(before));
      if (after !== undefined) added.push(encode(after));
    };
    const full = () => added.length + removed.length >= stepItems;
    for (const a of changes.accounts) {
      push(a.before, a.afterBytes, (value) => encodeAccountEntry(a.number, value));
      if (full()) {
        flush();
        yield;
      }
    }
    for (const s of changes.spaces) {
      push(s.before, s.afterBytes, (value) => encodeSpaceEntry(s.space, s.key, value));
      if (full()) {
        flush();
        yield;
      }
    }
    if (changes.producers !== undefined) {
      const { before, after } = changes.producers;
      push(encodeProducerList(before), encodeProducerList(after), encodeProducersEntry);
    }
    flush();
    return out;
  }
}

/** Entries summed into a vector a few thousand at a time (one LtHash.update each), for scans. */
export class VectorSum {
  private pending: Uint8Array[] = [];

  constructor(
    readonly vector: LtHash,
    private readonly hashes: Hashes,
  ) {}

  add(entry: Uint8Array): void {
    this.pending.push(entry);
    if (this.pending.length === SUM_BATCH) this.flush();
  }

  /** The vector with every entry added so far. */
  flush(): LtHash {
    this.vector.update(this.pending, [], this.hashes);
    this.pending = [];
    return this.vector;
  }
}

const SUM_BATCH = 4096;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
