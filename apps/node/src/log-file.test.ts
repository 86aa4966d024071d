import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRotatingFile, parseLogFileSize } from './log-file';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chain-log-file-'));
  dirs.push(dir);
  return dir;
}

/** The numbers of the records in `file`, in order. */
async function records(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { i: number }).i);
}

function line(i: number): string {
  return `${JSON.stringify({ i, padding: 'x'.repeat(30) })}\n`;
}

describe('parseLogFileSize', () => {
  it.each([
    ['500k', 500 * 1024],
    ['10m', 10 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['2', 2 * 1024 ** 2],
    ['1.5k', 1536],
  ])('reads %j', (text, bytes) => {
    expect(parseLogFileSize(text)).toBe(bytes);
  });

  it.each(['', 'ten', '10mb', '-1k', '0'])('refuses %j', (text) => {
    expect(() => parseLogFileSize(text)).toThrow(/log file size/);
  });
});

describe('openRotatingFile', () => {
  it('keeps the live log at PATH and rotations beside it, newest .1, no record lost or split', async () => {
    const dir = await tempDir();
    const path = join(dir, 'nested', 'node.log');
    const file = openRotatingFile({ path, maxBytes: 200, count: 3 });
    for (let i = 0; i < 100; i++) file.write(line(i));
    file.close();
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual([
      'node.log',
      'node.log.1',
      'node.log.2',
      'node.log.3',
    ]);
    const live = await records(path);
    const [one, two, three] = await Promise.all(
      [1, 2, 3].map((index) => records(`${path}.${index}`)),
    );
    // Consecutive records across the files: oldest in .3, newest in the live file.
    const all = [...three!, ...two!, ...one!, ...live];
    expect(all.at(-1)).toBe(99);
    expect(all).toEqual(Array.from({ length: all.length }, (_, k) => all[0]! + k));
    for (const name of ['node.log', 'node.log.1', 'node.log.2', 'node.log.3']) {
      const size = (await readFile(join(dir, 'nested', name))).length;
      expect(size).toBeLessThanOrEqual(200);
    }
  });

  it('appends to an existing live log and rotates it with the rest', async () => {
    const dir = await tempDir();
    const path = join(dir, 'node.log');
    await writeFile(path, line(0));
    await writeFile(`${path}.1`, line(-1));
    const file = openRotatingFile({ path, maxBytes: 120, count: 5 });
    file.write(line(1));
    expect(await records(path)).toEqual([0, 1]);
    file.write(line(2));
    file.close();
    expect(await records(path)).toEqual([2]);
    expect(await records(`${path}.1`)).toEqual([0, 1]);
    expect(await records(`${path}.2`)).toEqual([-1]);
  });

  it('writes a record larger than the size whole, alone in its file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'node.log');
    const file = openRotatingFile({ path, maxBytes: 10, count: 2 });
    file.write(line(1));
    file.write(line(2));
    file.close();
    expect(await records(path)).toEqual([2]);
    expect(await records(`${path}.1`)).toEqual([1]);
  });

  it('deletes rotations beyond the count, also those a previous run left', async () => {
    const dir = await tempDir();
    const path = join(dir, 'node.log');
    for (const index of [1, 2, 3, 4]) await writeFile(`${path}.${index}`, line(-index));
    await writeFile(join(dir, 'node.log.old'), 'kept');
    const file = openRotatingFile({ path, maxBytes: 60, count: 2 });
    for (let i = 0; i < 4; i++) file.write(line(i));
    file.close();
    expect((await readdir(dir)).sort()).toEqual([
      'node.log',
      'node.log.1',
      'node.log.2',
      'node.log.old',
    ]);
    expect(await records(path)).toEqual([3]);
    expect(await records(`${path}.1`)).toEqual([2]);
    expect(await records(`${path}.2`)).toEqual([1]);
  });

  it('drops writes after close, and counts multibyte text in bytes', async () => {
    const dir = await tempDir();
    const path = join(dir, 'node.log');
    const file = openRotatingFile({ path, maxBytes: 40, count: 1 });
    const text = `${JSON.stringify({ i: 1, s: '€€€€€€' })}\n`; // 6 × 3 bytes
    expect(Buffer.byteLength(text)).toBeGreaterThan(20);
    file.write(text);
    file.write(text);
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(await readFile(`${path}.1`, 'utf8')).toBe(text);
    file.close();
    expect(file.write(line(9))).toBe(false);
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('goes on writing to the live file when rotation fails, and says so once', async () => {
    const dir = await tempDir();
    const path = join(dir, 'node.log');
    // A directory where the rotation must go: renaming the live file onto it fails.
    const { mkdir } = await import('node:fs/promises');
    await mkdir(`${path}.1`);
    await writeFile(join(`${path}.1`, 'x'), 'x');
    const errors: string[] = [];
    const file = openRotatingFile({
      path,
      maxBytes: 50,
      count: 1,
      onError: (error) => errors.push(error.message),
    });
    for (let i = 0; i < 5; i++) file.write(line(i));
    file.close();
    expect(await records(path)).toEqual([0, 1, 2, 3, 4]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/node\.log: rotation failed/);
  });
});
