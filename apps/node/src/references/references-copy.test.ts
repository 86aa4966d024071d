import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyWithdrawalReferences } from './references-copy';
import { openWithdrawalReferences, type ReferenceRecord } from './withdrawal-references';

// The references database copied for a backup: on real LevelDB in a temp dir, read back through
// the node's own reader; refused (not torn) while a node holds it; nothing when there is none.

const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length > 0) await rm(dirs.pop()!, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'references-copy-'));
  dirs.push(dir);
  return dir;
}

function record(nOperation: number, height: number): ReferenceRecord {
  return {
    intent: `sendTo|CHx|${nOperation}`,
    raw: 'ab'.repeat(20),
    nOperation,
    ophash: 'cd'.repeat(32),
    height,
  };
}

describe('copyWithdrawalReferences', () => {
  it('copies every reference of a stopped node, readable by the node at the copy', async () => {
    const dir = await tempDir();
    const from = join(dir, 'references');
    const references = await openWithdrawalReferences(from, 100);
    for (let i = 0; i < 1500; i++)
      await references.put('CHsigner', `w-${i}`, record(i + 1, 10 + (i % 7)));
    await references.close();

    const to = join(dir, 'backup-references');
    expect(await copyWithdrawalReferences(from, to)).toEqual({ copied: true, records: 1500 });
    const copy = await openWithdrawalReferences(to, 100);
    try {
      expect(await copy.get('CHsigner', 'w-0')).toEqual(record(1, 10));
      expect(await copy.get('CHsigner', 'w-1499')).toEqual(record(1500, 10 + (1499 % 7)));
      expect(await copy.get('CHsigner', 'w-1500')).toBeUndefined();
      // The height index came along: a prune there forgets the references first used at block 10.
      expect(await copy.prune(100 + 11)).toBe(Math.ceil(1500 / 7));
      expect(await copy.get('CHsigner', 'w-0')).toBeUndefined();
      expect(await copy.get('CHsigner', 'w-1')).toEqual(record(2, 11));
    } finally {
      await copy.close();
    }
  });

  it('says so when a running node holds the database, and when there is none', async () => {
    const dir = await tempDir();
    const from = join(dir, 'references');
    const running = await openWithdrawalReferences(from, 100);
    try {
      await running.put('CHsigner', 'held', record(1, 1));
      expect(await copyWithdrawalReferences(from, join(dir, 'copy'))).toEqual({
        copied: false,
        reason: 'in-use',
      });
    } finally {
      await running.close();
    }
    expect(await copyWithdrawalReferences(join(dir, 'none'), join(dir, 'copy2'))).toEqual({
      copied: false,
      reason: 'absent',
    });
  });
});
