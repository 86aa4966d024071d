import { ClassicLevel } from 'classic-level';

/**
 * The client references of sendTo and sendToken (docs/decisions.md, "Withdrawal references"): for
 * each (signer, reference), the operation the first call signed, as its bytes. The record is written
 * and synced BEFORE the operation is submitted, so that a crash anywhere after leaves the exact
 * signed bytes behind: a retry finds the operation (pending or mined, by its signer's n_operation)
 * or submits those same bytes again, which the chain can apply at most once (one n_operation).
 * Nothing of a passphrase or key is stored: the bytes are signed, public once submitted.
 */

/** A reference: printable ASCII without space, so that it can be logged and shown without escaping. */
export const REFERENCE_PATTERN = /^[\x21-\x7e]+$/;

export interface ReferenceRecord {
  /** What the call asked for, canonical (method, receiver, amount in base units, token, payload). */
  readonly intent: string;
  /** The signed operation, hex. */
  readonly raw: string;
  /** The n_operation the operation carries. */
  readonly nOperation: number;
  /** Its ophash as submitted (block 0): its digest names the operation once mined. */
  readonly ophash: string;
  /** The head height when the reference was first used: it is forgotten `retentionBlocks` later. */
  readonly height: number;
}

export interface WithdrawalReferences {
  get(signer: string, reference: string): Promise<ReferenceRecord | undefined>;
  /** Stores the record, synced to disk before it resolves. */
  put(signer: string, reference: string, record: ReferenceRecord): Promise<void>;
  /** Forgets a reference whose operation the chain refused (nothing was paid). */
  delete(signer: string, reference: string): Promise<void>;
  /** Forgets the references first used more than `retentionBlocks` before `height`. */
  prune(height: number): Promise<number>;
  /**
   * Runs `use` alone for this signer: two calls with one reference, or two referenced sends of one
   * signer, must not both sign (each would take the next n_operation).
   */
  exclusive<T>(signer: string, use: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const RECORD = 'r!';
const BY_HEIGHT = 'h!';

function recordKey(signer: string, reference: string): string {
  return `${RECORD}${signer}!${reference}`;
}

function heightKey(height: number, signer: string, reference: string): string {
  // Fixed-width hex: the keys sort by height, so a prune reads only what it deletes.
  return `${BY_HEIGHT}${height.toString(16).padStart(8, '0')}!${signer}!${reference}`;
}

export async function openWithdrawalReferences(
  dir: string,
  retentionBlocks: number,
): Promise<WithdrawalReferences> {
  const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const turns = new Map<string, Promise<unknown>>();

  async function get(signer: string, reference: string): Promise<ReferenceRecord | undefined> {
    const text = await db.get(recordKey(signer, reference));
    return text === undefined ? undefined : (JSON.parse(text) as ReferenceRecord);
  }

  return {
    get,

    async put(signer, reference, record) {
      await db.batch(
        [
          { type: 'put', key: recordKey(signer, reference), value: JSON.stringify(record) },
          { type: 'put', key: heightKey(record.height, signer, reference), value: '' },
        ],
        { sync: true },
      );
    },

    async delete(signer, reference) {
      const record = await get(signer, reference);
      if (record === undefined) return;
      await db.batch(
        [
          { type: 'del', key: recordKey(signer, reference) },
          { type: 'del', key: heightKey(record.height, signer, reference) },
        ],
        { sync: true },
      );
    },

    async prune(height) {
      const below = height - retentionBlocks;
      if (below <= 0) return 0;
      const end = `${BY_HEIGHT}${below.toString(16).padStart(8, '0')}`;
      const ops: { type: 'del'; key: string }[] = [];
      for await (const key of db.keys({ gte: BY_HEIGHT, lt: end, limit: 10_000 })) {
        const rest = key.slice(BY_HEIGHT.length + 9);
        const split = rest.indexOf('!');
        ops.push({ type: 'del', key });
        ops.push({ type: 'del', key: recordKey(rest.slice(0, split), rest.slice(split + 1)) });
      }
      if (ops.length > 0) await db.batch(ops);
      return ops.length / 2;
    },

    exclusive(signer, use) {
      const before = turns.get(signer) ?? Promise.resolve();
      const run = before.then(use, use);
      const settled = run.catch(() => undefined);
      turns.set(signer, settled);
      void settled.then(() => {
        if (turns.get(signer) === settled) turns.delete(signer);
      });
      return run;
    },

    close() {
      return db.close();
    },
  };
}
