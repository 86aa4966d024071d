import { writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../test/fixtures';
import { type DirectoryChanges, watchDirectoryChanges } from './directory-watcher';

const newTempDir = useTempDirs();

async function newDir(): Promise<string> {
  const dir = await newTempDir();
  await mkdir(dir);
  return dir;
}

/** A watch of `dir` vouched for by a (pretended) complete pass. */
function trustedWatch(dir: string, options = {}): DirectoryChanges {
  const changes = watchDirectoryChanges(dir, { enabled: true, ...options });
  changes.complete(changes.mark());
  return changes;
}

describe.runIf(process.platform === 'linux')('directory changes', () => {
  it('tells nothing until a pass begun after the watch completed', async () => {
    const dir = await newDir();
    const changes = watchDirectoryChanges(dir, { enabled: true });
    await writeFile(join(dir, 'a.json'), '{}');
    expect(await changes.take()).toBeUndefined();
    const mark = changes.mark();
    await writeFile(join(dir, 'b.json'), '{}');
    changes.complete(mark);
    // What came before the mark may be told again (read once more: the same file, no change).
    expect(await changes.take()).toContain('b.json');
    expect(await changes.take()).toEqual([]);
    changes.close();
  });

  it('records the key files come, gone and changed, not hidden or backup names', async () => {
    const dir = await newDir();
    await writeFile(join(dir, 'old.json'), '{}');
    await writeFile(join(dir, 'kept.json'), '{}');
    const changes = trustedWatch(dir);
    await writeFile(join(dir, 'new.json'), '{}');
    await rm(join(dir, 'old.json'));
    await writeFile(join(dir, 'kept.json'), '{"changed":true}');
    await writeFile(join(dir, '.tmp-123'), '{}');
    await writeFile(join(dir, 'edited.json~'), '{}');
    await mkdir(join(dir, '.index'));
    expect(new Set(await changes.take())).toEqual(new Set(['new.json', 'old.json', 'kept.json']));
    await rename(join(dir, 'new.json'), join(dir, 'moved.json'));
    expect(new Set(await changes.take())).toEqual(new Set(['new.json', 'moved.json']));
    changes.close();
  });

  it('doubts a turn of the event loop with so many events that the kernel may have dropped some', async () => {
    const dir = await newDir();
    const changes = trustedWatch(dir, { maxEventsPerTurn: 8 });
    // Written without yielding: their events are all read in one turn.
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `k${i}.json`), '{}');
    expect(await changes.take()).toBeUndefined();
    // Until a pass begun after the doubt completes.
    const mark = changes.mark();
    changes.complete(mark);
    await writeFile(join(dir, 'after.json'), '{}');
    expect(await changes.take()).toEqual(['after.json']);
    changes.close();
  });

  it("doubts a real overflow of the kernel's queue (more events than max_queued_events, unread)", async () => {
    const dir = await newDir();
    const changes = trustedWatch(dir);
    const limit = Number(await readFile('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    // Two events a file (made, written), none read meanwhile: the kernel drops those past its limit.
    for (let i = 0; i <= limit / 2 + 100; i++) writeFileSync(join(dir, `k${i}.json`), '{}');
    expect(await changes.take()).toBeUndefined();
    changes.close();
  });

  it('doubts a record past its bound, a directory put in its place, and a pass that a doubt overtook', async () => {
    const dir = await newDir();
    const bounded = trustedWatch(dir, { maxNames: 3 });
    for (const name of ['a', 'b', 'c', 'd']) await writeFile(join(dir, `${name}.json`), '{}');
    expect(await bounded.take()).toBeUndefined();
    bounded.close();

    const parent = await newDir();
    const keys = join(parent, 'keys');
    await mkdir(keys);
    const replaced = trustedWatch(keys);
    await rename(keys, join(parent, 'gone'));
    await mkdir(keys);
    await writeFile(join(keys, 'a.json'), '{}');
    expect(await replaced.take()).toBeUndefined();
    // The next pass watches the directory now at that path.
    replaced.complete(replaced.mark());
    await writeFile(join(keys, 'b.json'), '{}');
    expect(await replaced.take()).toEqual(['b.json']);
    replaced.close();

    const overtaken = watchDirectoryChanges(dir, { enabled: true, maxNames: 1 });
    const mark = overtaken.mark();
    await writeFile(join(dir, 'e.json'), '{}');
    await writeFile(join(dir, 'f.json'), '{}');
    await overtaken.take();
    overtaken.complete(mark);
    expect(await overtaken.take()).toBeUndefined();
    overtaken.close();
  });

  it('vouches for a file read since, until its next event, a doubt, or its directory moved', async () => {
    const parent = await newDir();
    const dir = join(parent, 'keys');
    await mkdir(dir);
    await writeFile(join(dir, 'a.json'), '{}');
    await writeFile(join(dir, 'b.json'), '{}');
    const changes = watchDirectoryChanges(dir, { enabled: true });
    const readNow = async (name: string) => {
      changes.reading(name)();
      await changes.settled();
    };
    // Never read: not vouched for, whatever the record's trust.
    expect(changes.unchangedSinceRead('a.json')).toBe(false);
    await readNow('a.json');
    await readNow('b.json');
    expect(changes.unchangedSinceRead('a.json')).toBe(true);

    await writeFile(join(dir, 'a.json'), '{"changed":true}');
    await changes.settled();
    expect(changes.unchangedSinceRead('a.json')).toBe(false);
    expect(changes.unchangedSinceRead('b.json')).toBe(true);

    // An event while the file was being read: what was read may be the old content.
    const read = changes.reading('a.json');
    await writeFile(join(dir, 'a.json'), '{"again":true}');
    await changes.settled();
    read();
    expect(changes.unchangedSinceRead('a.json')).toBe(false);

    changes.distrust();
    expect(changes.unchangedSinceRead('b.json')).toBe(false);
    await readNow('b.json');
    expect(changes.unchangedSinceRead('b.json')).toBe(true);

    // The directory moved away: nothing at its path is watched until a pass watches again.
    const inFlight = changes.reading('a.json');
    await rename(dir, join(parent, 'gone'));
    await mkdir(dir);
    await writeFile(join(dir, 'b.json'), '{}');
    await changes.settled();
    expect(changes.unchangedSinceRead('b.json')).toBe(false);
    changes.mark();
    inFlight();
    expect(changes.unchangedSinceRead('a.json')).toBe(false);
    await readNow('b.json');
    expect(changes.unchangedSinceRead('b.json')).toBe(true);
    changes.close();
    expect(changes.unchangedSinceRead('b.json')).toBe(false);
  });

  it('tells nothing when off, or once closed', async () => {
    const dir = await newDir();
    const off = trustedWatch(dir, { enabled: false });
    await writeFile(join(dir, 'a.json'), '{}');
    expect(await off.take()).toBeUndefined();
    const closed = trustedWatch(dir);
    closed.close();
    expect(await closed.take()).toBeUndefined();
  });
});
