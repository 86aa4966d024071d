import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeNodeLogger,
  createLogger,
  createNodeLogger,
  moduleLogger,
  parseLogLevels,
} from './logger';

function sink(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter(Boolean) };
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('parseLogLevels', () => {
  it('reads a level, module levels, or both', () => {
    expect(parseLogLevels('debug')).toEqual({ level: 'debug', modules: {} });
    expect(parseLogLevels('p2p=debug,rpc=warn')).toEqual({
      level: 'info',
      modules: { p2p: 'debug', rpc: 'warn' },
    });
    expect(parseLogLevels(' warn , chain=trace ')).toEqual({
      level: 'warn',
      modules: { chain: 'trace' },
    });
  });

  it.each([
    ['loud', /unknown log level 'loud'/],
    ['db=info', /unknown log module 'db' \(one of p2p, rpc/],
    ['p2p=loud', /unknown log level 'p2p=loud' for p2p/],
    ['p2p=debug=x', /unknown log level/],
  ])('refuses %j, naming the bad part', (spec, message) => {
    expect(() => parseLogLevels(spec)).toThrow(message);
  });
});

describe('per-module levels', () => {
  it('let a module log below the default level, or above it', () => {
    const out = sink();
    const log = createLogger('info,p2p=debug,rpc=warn', out.stream, 'json');
    log.debug('root debug');
    log.info('root info');
    moduleLogger(log, 'p2p').debug('p2p debug');
    moduleLogger(log, 'rpc').info('rpc info');
    moduleLogger(log, 'rpc').warn('rpc warn');
    moduleLogger(log, 'chain').debug('chain debug');
    const records = out.lines().map((line) => JSON.parse(line));
    expect(records.map((record) => [record.module, record.msg])).toEqual([
      [undefined, 'root info'],
      ['p2p', 'p2p debug'],
      ['rpc', 'rpc warn'],
    ]);
  });
});

describe('log formats', () => {
  it('writes JSON lines, or pretty text when asked even off a terminal', () => {
    const json = sink();
    createLogger('info', json.stream, 'json').info({ block: 7 }, 'block');
    expect(JSON.parse(json.lines()[0]!)).toMatchObject({ level: 30, block: 7, msg: 'block' });
    const text = sink();
    createLogger('info', text.stream, 'pretty').info({ block: 7 }, 'block');
    expect(text.lines()[0]).toMatch(/INFO.*block/);
    expect(() => JSON.parse(text.lines()[0]!)).toThrow();
  });
});

describe('--log-file', () => {
  it('writes JSON records to the live file at PATH, rotated beside it, secrets redacted, none lost', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chain-log-'));
    dirs.push(dir);
    const out = sink();
    const path = join(dir, 'node.log');
    const log = await createNodeLogger(
      { level: 'info', format: 'json', file: path, fileSize: '1k', fileCount: 2 },
      out.stream,
    );
    for (let i = 0; i < 200; i++) {
      log.info({ i, passphrase: 'Sentinel-Secret', padding: 'x'.repeat(40) }, 'record');
    }
    closeNodeLogger(log);
    log.info({ i: 200 }, 'after close: console only');
    expect((await readdir(dir)).sort()).toEqual(['node.log', 'node.log.1', 'node.log.2']);
    const read = async (file: string) =>
      (await readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { i: number; passphrase: string });
    const files = await Promise.all([`${path}.2`, `${path}.1`, path].map(read));
    const all = files.flat();
    for (const record of all) expect(record.passphrase).toBe('[secret]');
    // The newest records, consecutive from the oldest rotation to the live file.
    expect(all.at(-1)!.i).toBe(199);
    expect(all.map((record) => record.i)).toEqual(
      Array.from({ length: all.length }, (_, k) => 200 - all.length + k),
    );
    expect(out.lines()).toHaveLength(201);
  });
});
