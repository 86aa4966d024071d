import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricValue, readMemoryParts } from './memory-parts.js';

const MB = 2 ** 20;

const EXPOSITION = [
  '# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.',
  '# TYPE nodejs_heap_size_used_bytes gauge',
  'nodejs_heap_size_used_bytes 41943040',
  'nodejs_heap_size_total_bytes 62914560',
  'nodejs_external_memory_bytes 1048576',
  'chain_leveldb_memory_bytes 4104',
  'chain_state_cache_entries{kind="accounts"} 10',
  'chain_state_cache_entries{kind="numbers"} 20',
  'chain_state_cache_entries{kind="spaces"} 3',
].join('\n');

describe('memory parts', () => {
  it('reads a gauge of a Prometheus exposition, labelled or not, and nothing for one absent', () => {
    expect(metricValue(EXPOSITION, 'nodejs_heap_size_used_bytes')).toBe(41_943_040);
    expect(metricValue(EXPOSITION, 'chain_state_cache_entries\\{kind="numbers"\\}')).toBe(20);
    expect(metricValue(EXPOSITION, 'nodejs_heap_size')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    "splits a process's memory: V8's heap from its metrics, malloc's thread arenas, the table files",
    async () => {
      // A child whose worker thread holds 48 MiB in small Buffers: malloc'd in that thread's arena.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `const { Worker } = require('node:worker_threads');
           new Worker("globalThis.held = Array.from({ length: 98304 }, () => Buffer.alloc(512, 1)); require('node:worker_threads').parentPort.postMessage('ready'); setTimeout(() => {}, 10000);", { eval: true })
             .on('message', () => console.log('ready'));`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const server = createServer((_request, response) => response.end(EXPOSITION));
      const chainDir = await mkdtemp(join(tmpdir(), 'memory-parts-'));
      try {
        await once(child.stdout!, 'data');
        server.listen(0, '127.0.0.1');
        await once(server, 'listening');
        const { port } = server.address() as AddressInfo;
        for (const name of ['000005.ldb', '000007.ldb', '000008.log', 'MANIFEST-000004']) {
          await writeFile(join(chainDir, name), '');
        }
        const parts = await readMemoryParts(
          child.pid!,
          `http://127.0.0.1:${port}/metrics`,
          chainDir,
        );
        expect(parts).toMatchObject({
          heapUsedBytes: 40 * MB,
          heapTotalBytes: 60 * MB,
          externalBytes: MB,
          levelDbBytes: 4104,
          stateCacheEntries: 33,
          tables: 2,
        });
        expect(parts!.threadArenas).toBeGreaterThanOrEqual(1);
        expect(parts!.threadArenaBytes).toBeGreaterThan(48 * MB);
        expect(parts!.mainArenaBytes).toBeGreaterThan(0);
        expect(parts!.mainArenaBytes).toBeLessThan(48 * MB);
      } finally {
        child.kill();
        server.close();
        await rm(chainDir, { recursive: true, force: true });
      }
    },
  );

  it('reads nothing when the metrics do not answer', async () => {
    expect(await readMemoryParts(process.pid, 'http://127.0.0.1:1/metrics', tmpdir())).toBe(
      undefined,
    );
  });
});
