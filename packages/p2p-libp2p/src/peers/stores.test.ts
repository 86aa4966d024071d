import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Blacklist } from '../discipline/blacklist';
import { BAN_SCORE, MisbehaviourScores, PENALTY } from '../discipline/misbehaviour';
import { blacklistReason } from '../errors';
import { PeerBook } from './peer-book';
import { loadOrCreatePeerKey, PEER_KEY_FILE } from './peer-key';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'p2p-store-'));
  dirs.push(dir);
  return dir;
}

describe('blacklist', () => {
  it('persists entries until they expire', async () => {
    const dir = await tempDir();
    let now = 1_000_000;
    const list = new Blacklist({ dir, now: () => now });
    list.add({ ip: '10.0.0.1', port: 9714, reason: 'bad', durationMs: 60_000, manual: false });
    list.add({ ip: '10.0.0.2', reason: 'by hand', durationMs: 120_000, manual: true });
    expect(list.blocks('10.0.0.1')).toBe(true);
    expect(list.blocks('10.0.0.3')).toBe(false);
    await list.flush();
    const reloaded = new Blacklist({ dir, now: () => now });
    await reloaded.load();
    expect(reloaded.list().map((e) => [e.ip, e.port, e.reason, e.manual])).toEqual([
      ['10.0.0.1', 9714, 'bad', false],
      ['10.0.0.2', 0, 'by hand', true],
    ]);
    now += 90_000;
    expect(reloaded.blocks('10.0.0.1')).toBe(false);
    expect(reloaded.list().map((e) => e.ip)).toEqual(['10.0.0.2']);
    expect(reloaded.clear()).toBe(1);
    expect(reloaded.list()).toEqual([]);
    await reloaded.flush();
  });

  it('formats automatic reasons as ERRCODE:<n> ERROR:<text>', () => {
    expect(blacklistReason(1003, 'BAD_BLOCK_SIGNATURE  the\nsignature')).toBe(
      'ERRCODE:1003 ERROR:BAD_BLOCK_SIGNATURE the signature',
    );
  });
});

describe('misbehaviour scores', () => {
  it('bans at once for an invalid block, after repeats for lesser offences, and fades', () => {
    let now = 0;
    const scores = new MisbehaviourScores(() => now);
    expect(scores.add('a', 'invalidBlock')).toBeGreaterThanOrEqual(BAN_SCORE);
    expect(scores.add('b', 'garbage')).toBeLessThan(BAN_SCORE);
    expect(scores.add('b', 'garbage')).toBeLessThan(BAN_SCORE);
    expect(scores.add('b', 'garbage')).toBeGreaterThanOrEqual(BAN_SCORE);
    scores.add('c', 'oversized');
    now += 10 * 60_000;
    expect(scores.score('c')).toBe(0);
    expect(PENALTY.badHandshake).toBe(BAN_SCORE);
  });
});

describe('peer book', () => {
  it('persists servers and backs off failed ones', async () => {
    const dir = await tempDir();
    let now = 0;
    const book = new PeerBook(dir, () => now);
    expect(book.add({ ip: '10.0.0.1', port: 9714 })).toBe(true);
    expect(book.add({ ip: '10.0.0.1', port: 9714 })).toBe(false);
    book.connected({ ip: '10.0.0.1', port: 9714 }, 'peer-id');
    book.add({ ip: '10.0.0.2', port: 9714 });
    book.failed({ ip: '10.0.0.2', port: 9714 });
    book.failed({ ip: '10.0.0.2', port: 9714 });
    expect(book.due().map((s) => s.ip)).toEqual(['10.0.0.1']);
    now += 4_001;
    expect(book.due().map((s) => s.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(book.get({ ip: '10.0.0.2', port: 9714 })?.attempts).toBe(2);
    await book.flush();
    const reloaded = new PeerBook(dir);
    await reloaded.load();
    expect(reloaded.list().map((s) => [s.ip, s.peerId])).toEqual([
      ['10.0.0.1', 'peer-id'],
      ['10.0.0.2', undefined],
    ]);
  });
});

describe('peer key', () => {
  it('is made once and read back: the peer id survives a restart', async () => {
    const dir = await tempDir();
    const key = await loadOrCreatePeerKey(dir);
    const again = await loadOrCreatePeerKey(dir);
    expect(again.equals(key)).toBe(true);
    expect((await readFile(join(dir, PEER_KEY_FILE))).length).toBeGreaterThan(32);
  });
});
