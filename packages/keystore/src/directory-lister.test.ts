import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../test/fixtures';
import { nameBatches } from './directory-lister';
import { nameHash } from './name-set';

const tempDir = useTempDirs();
async function newDir(): Promise<string> {
  const dir = await tempDir();
  await mkdir(dir, { recursive: true });
  return dir;
}

async function listed(dir: string, batchSize: number) {
  const names: string[] = [];
  const sizes: number[] = [];
  for await (const batch of nameBatches(dir, batchSize)) {
    sizes.push(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const name = batch.nameAt(i);
      expect(batch.hashes[i]).toBe(nameHash(name));
      names.push(name);
    }
  }
  return { names: names.sort(), sizes };
}

describe('nameBatches', () => {
  it("lists a directory's candidate files and links in batches, each name with its hash", async () => {
    const dir = await newDir();
    const files = Array.from({ length: 1_234 }, (_, i) => `UTC--${i}--é${'x'.repeat(i % 7)}.json`);
    for (const name of files) await writeFile(join(dir, name), '{}');
    await writeFile(join(dir, '.hidden'), '');
    await writeFile(join(dir, 'backup.json~'), '');
    await mkdir(join(dir, 'a-directory'));
    await symlink(join(dir, files[0]!), join(dir, 'linked.json'));
    const { names, sizes } = await listed(dir, 100);
    expect(names).toEqual([...files, 'linked.json'].sort());
    expect(sizes.slice(0, -1).every((size) => size === 100)).toBe(true);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(1_235);
  });

  it('ends at once on an empty directory, and fails with the error of a missing one', async () => {
    const dir = await newDir();
    expect((await listed(dir, 10)).names).toEqual([]);
    await expect(listed(join(dir, 'gone'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stops its thread when the pass stops early', async () => {
    const dir = await newDir();
    for (let i = 0; i < 50; i++) await writeFile(join(dir, `f${i}.json`), '{}');
    for await (const batch of nameBatches(dir, 5)) {
      expect(batch.length).toBe(5);
      break;
    }
    // Listing again after an abandoned pass works (its thread was stopped, not left waiting).
    expect((await listed(dir, 7)).names).toHaveLength(50);
  });
});
