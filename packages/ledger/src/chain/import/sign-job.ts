import type { Secp256k1Backend } from '@chain/crypto';
import { ChunkedJob } from './chunked-job';

/** One signature to make: a 32-byte message hash and the 32-byte private key to sign it with. */
export interface SignItem {
  hash: Uint8Array;
  privateKey: Uint8Array;
}

/**
 * Packed item: the hash (32 bytes), the private key (32, zeroed by the worker once it has signed),
 * the signature the worker writes (64). WORKER_SIGN_SOURCE says 128 too.
 */
const SIGN_ITEM_BYTES = 128;

/**
 * The worker's half (a function of WORKER_SOURCE in verifier-pool.ts, which routes a message with
 * `sign` set here): claims chunks as for verifying (`runChunks`, chunked-job.ts), signs each item
 * with libsecp256k1 (RFC 6979, low-S: the same bytes as the calling thread's backend makes), zeroes
 * the key it read, and says so when it finishes the job's last chunk.
 */
export const WORKER_SIGN_SOURCE = `
function signJob(message) {
  runChunks(message, 128, (data, o) => {
    let signed = false;
    try {
      data.set(binding.ecdsaSign(data.subarray(o, o + 32), data.subarray(o + 32, o + 64)).signature, o + 64);
      signed = true;
    } catch {}
    data.fill(0, o + 32, o + 64);
    return signed;
  });
}
`;

/**
 * A batch of signatures to make on the worker threads, in shared memory laid out as a verify job
 * (ChunkedJob) with SIGN_ITEM_BYTES per item. The items stay referenced here: should the workers
 * fail, the calling thread signs them itself (the keys in shared memory may already be zeroed).
 */
export class SignJob extends ChunkedJob {
  private readonly items: readonly SignItem[];
  /** Set when the calling thread made the signatures (the workers failed). */
  private local: (Uint8Array | null)[] | undefined;

  constructor(id: number, items: readonly SignItem[], chunk: number) {
    super(id, items.length, chunk, SIGN_ITEM_BYTES);
    this.items = items;
    const data = this.data!;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      // An item of the wrong lengths is left zero: the zero key fails to sign (null, below).
      if (item.hash.length === 32 && item.privateKey.length === 32) {
        data.set(item.hash, i * SIGN_ITEM_BYTES);
        data.set(item.privateKey, i * SIGN_ITEM_BYTES + 32);
      }
    }
  }

  /** The workers failed: no thread claims a chunk from now on, and this thread signs them all. */
  signLocally(backend: Secp256k1Backend): void {
    this.closeClaims();
    this.local = signHere(backend, this.items);
    this.data!.fill(0);
    this.finish();
  }

  /** One signature per item, in order; null where it could not be made (a bad key). */
  signatures(): (Uint8Array | null)[] {
    if (this.local !== undefined) return this.local;
    const data = this.data!;
    const out: (Uint8Array | null)[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const o = i * SIGN_ITEM_BYTES + 64;
      out[i] = this.ok[i] === 1 ? data.slice(o, o + 64) : null;
    }
    return out;
  }
}

/** Signs on the calling thread: the pool without threads, or after its workers failed. */
export function signHere(
  backend: Secp256k1Backend,
  items: readonly SignItem[],
): (Uint8Array | null)[] {
  return items.map((item) => {
    try {
      return backend.sign(item.hash, item.privateKey);
    } catch {
      return null;
    }
  });
}
