import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readResidentParts, readRss, sampleRss } from './rss-sampler.js';

const MB = 1024 * 1024;

describe('RSS sampling', () => {
  it('reads the resident set size of a process, and nothing for one that is gone', async () => {
    const rss = await readRss(process.pid);

    // Within 20% of what this process says about itself.
    expect(rss).toBeGreaterThan(process.memoryUsage().rss * 0.8);
    expect(rss).toBeLessThan(process.memoryUsage().rss * 1.2);
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    expect(await readRss(child.pid!)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'splits the RSS into anonymous and file-backed memory',
    async () => {
      // A child that holds 64 MiB of touched Buffer memory: anonymous, not file-backed.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `globalThis.b = Buffer.alloc(64 * 1024 * 1024, 1); console.log('ready'); setTimeout(() => {}, 5000);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        await once(child.stdout, 'data');
        const parts = await readResidentParts(child.pid!);
        expect(parts).toBeDefined();
        expect(parts!.anonBytes).toBeGreaterThan(64 * MB);
        // The node binary's code is file-backed.
        expect(parts!.fileBytes).toBeGreaterThan(MB);
        // VmRSS = RssAnon + RssFile + RssShmem (no shared memory here).
        expect(Math.abs(parts!.rssBytes - parts!.anonBytes - parts!.fileBytes)).toBeLessThan(MB);
      } finally {
        child.kill();
      }
      expect(await readResidentParts(2 ** 22 + 12_345)).toBeUndefined();
    },
  );

  it('keeps the largest sample of a process that grows and shrinks', async () => {
    // The child touches 150 MB, says so, frees it and waits.
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '-e',
        `let b = Buffer.alloc(150 * 1024 * 1024, 1);
         console.log('big');
         setTimeout(() => { b = undefined; global.gc(); console.log('small'); }, 400);
         setTimeout(() => {}, 5000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const sampler = sampleRss(child.pid!, 50);
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (text: string) => {
        output += text;
      });
      while (!output.includes('small')) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const summary = await sampler.stop();

      expect(summary.maxBytes).toBeGreaterThan(150 * MB);
      expect(summary.lastBytes).toBeLessThan(summary.maxBytes - 100 * MB);
      expect(summary.samples).toBeGreaterThan(5);
    } finally {
      child.kill();
    }
  });
});
