import { describe, expect, it } from 'vitest';
import { ReadBatcher } from './read-batcher';

const key = (n: number) => Uint8Array.of(n);

/** A database whose calls the test answers one by one. */
function manualDatabase() {
  const calls: Array<{ keys: number[]; answer(): void; fail(error: Error): void }> = [];
  const getMany = (keys: Uint8Array[]) =>
    new Promise<(Uint8Array | undefined)[]>((resolve, reject) => {
      calls.push({
        keys: keys.map((k) => k[0]!),
        // Odd keys exist (their value is the key times ten), even ones do not.
        answer: () =>
          resolve(keys.map((k) => (k[0]! % 2 === 1 ? Uint8Array.of(k[0]! * 10) : undefined))),
        fail: reject,
      });
    });
  return { calls, getMany };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const values = (vs: (Uint8Array | undefined)[]) => vs.map((v) => v?.[0]);

describe('ReadBatcher', () => {
  it('sends the reads of one turn in one call and gives each caller its own values', async () => {
    const db = manualDatabase();
    const batcher = new ReadBatcher(db.getMany, 2);
    const a = batcher.read([key(1), key(2)]);
    const b = batcher.read([key(3)]);
    await turn();
    expect(db.calls.map((c) => c.keys)).toEqual([[1, 2, 3]]);
    db.calls[0]!.answer();
    expect(values(await a)).toEqual([10, undefined]);
    expect(values(await b)).toEqual([30]);
  });

  it('holds reads while the calls in flight are at the limit, then sends them together', async () => {
    const db = manualDatabase();
    const batcher = new ReadBatcher(db.getMany, 1);
    const first = batcher.read([key(1)]);
    await turn();
    const later = [batcher.read([key(5)]), batcher.read([key(7)])];
    await turn();
    const afterATurn = batcher.read([key(9)]);
    await turn();
    expect(db.calls).toHaveLength(1);
    db.calls[0]!.answer();
    expect(values(await first)).toEqual([10]);
    await turn();
    expect(db.calls.map((c) => c.keys)).toEqual([[1], [5, 7, 9]]);
    db.calls[1]!.answer();
    expect((await Promise.all([...later, afterATurn])).map(values)).toEqual([[50], [70], [90]]);
  });

  it('rejects every caller of a failed call, and later reads still go out', async () => {
    const db = manualDatabase();
    const batcher = new ReadBatcher(db.getMany, 1);
    const a = batcher.read([key(1)]);
    const b = batcher.read([key(3)]);
    await turn();
    db.calls[0]!.fail(new Error('database closed'));
    await expect(a).rejects.toThrow('database closed');
    await expect(b).rejects.toThrow('database closed');
    const c = batcher.read([key(5)]);
    await turn();
    db.calls[1]!.answer();
    expect(values(await c)).toEqual([50]);
  });

  it('answers an empty read without calling the database', async () => {
    const db = manualDatabase();
    expect(await new ReadBatcher(db.getMany, 1).read([])).toEqual([]);
    await turn();
    expect(db.calls).toHaveLength(0);
  });
});
