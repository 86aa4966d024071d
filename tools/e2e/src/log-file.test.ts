import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devWallet } from './harness/chain';
import { call, startNode } from './harness/node-process';

// `--log-file PATH`: the live log is PATH itself, as with geth and bitcoind; rotations by size sit
// beside it (PATH.1 the newest ... PATH.N), the oldest beyond --log-file-count deleted, and no
// record is lost or split across a rotation.
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface LogRecord {
  msg: string;
  block?: number;
}

async function recordsOf(file: string): Promise<LogRecord[]> {
  const text = await readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogRecord);
}

describe('--log-file', () => {
  it('writes the live log at PATH, rotated files beside it, the newest .1, none lost', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chain-e2e-log-file-'));
    dirs.push(dir);
    const path = join(dir, 'logs', 'node.log');
    const node = await startNode({
      args: [
        '--block-time',
        '100',
        '--log-format',
        'json',
        '--log-file',
        path,
        '--log-file-size',
        '1k',
        '--log-file-count',
        '3',
      ],
    });
    try {
      // One `block` record per block, and a block for each transfer: enough for several rotations.
      const dev = devWallet(node);
      const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', {
        passphrase: 'pw',
      });
      const deadline = Date.now() + 40_000;
      while (Date.now() < deadline) {
        await call(node.url, 'sendTo', {
          sender: dev,
          passphrase: 'dev',
          receiver: wallet,
          amount: '1',
        });
        const names: string[] = await readdir(join(dir, 'logs')).catch(() => []);
        if (names.includes('node.log.3')) {
          const oldest = await recordsOf(`${path}.3`);
          // The first files were rotated away: the oldest kept one starts past the first blocks.
          if (oldest.some((record) => record.msg === 'block' && record.block! > 20)) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    } finally {
      expect(await node.stop('SIGTERM')).toBe(0);
    }
    expect((await readdir(join(dir, 'logs'))).sort()).toEqual([
      'node.log',
      'node.log.1',
      'node.log.2',
      'node.log.3',
    ]);
    const files = [`${path}.3`, `${path}.2`, `${path}.1`, path];
    for (const file of files) expect((await stat(file)).size).toBeLessThanOrEqual(1024);
    const records = (await Promise.all(files.map(recordsOf))).flat();
    // The live file ends with the node's last words: the writer was open until then.
    expect(records.at(-1)!.msg).toBe('stopped');
    const live = await recordsOf(path);
    expect(live.at(-1)!.msg).toBe('stopped');
    // Blocks are logged in order, one record each: consecutive numbers across the rotations show
    // that no record was lost at a rotation.
    const blocks = records
      .filter((record) => record.msg === 'block')
      .map((record) => record.block!);
    expect(blocks.length).toBeGreaterThan(10);
    // The first blocks went with the rotations beyond --log-file-count.
    expect(blocks[0]).toBeGreaterThan(1);
    expect(blocks).toEqual(Array.from({ length: blocks.length }, (_, k) => blocks[0]! + k));
    // The console got the same records (JSON lines there too).
    const consoleRecords = node
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogRecord);
    expect(consoleRecords.filter((record) => record.msg === 'block').map((r) => r.block)).toEqual(
      expect.arrayContaining(blocks),
    );
  }, 90_000);
});
