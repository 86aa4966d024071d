import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

/** What copyWithdrawalReferences did. */
export type ReferencesCopy =
  | { copied: true; records: number }
  /** No references database there (a node that never took a reference): nothing to copy. */
  | { copied: false; reason: 'absent' }
  /** A running node holds the database (LevelDB's lock): it cannot be read whole from outside. */
  | { copied: false; reason: 'in-use' };

/**
 * The withdrawal references database of a stopped node (`<datadir>/references`) copied into a new
 * one at `to`, entry by entry through one iterator (the database at one instant). A backup must
 * carry it: without it, a withdrawal retried with its reference on the restored node would be paid
 * again (docs/decisions.md, "Withdrawal references"). It cannot be rebuilt from the chain.
 */
export async function copyWithdrawalReferences(from: string, to: string): Promise<ReferencesCopy> {
  try {
    await access(join(from, 'CURRENT'));
  } catch {
    return { copied: false, reason: 'absent' };
  }
  const source = new ClassicLevel<string, string>(from, {
    keyEncoding: 'utf8',
    valueEncoding: 'utf8',
    createIfMissing: false,
  });
  try {
    await source.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') return { copied: false, reason: 'in-use' };
    throw error;
  }
  try {
    const target = new ClassicLevel<string, string>(to, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
      errorIfExists: true,
    });
    await target.open();
    let records = 0;
    try {
      let batch = target.batch();
      for await (const [key, value] of source.iterator()) {
        batch.put(key, value);
        if (key.startsWith('r!')) records++;
        if (batch.length >= 1000) {
          await batch.write();
          batch = target.batch();
        }
      }
      await batch.write({ sync: true });
    } finally {
      await target.close();
    }
    return { copied: true, records };
  } finally {
    await source.close();
  }
}
