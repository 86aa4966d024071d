import { describe, expect, it } from 'vitest';
import { keyIndexLogger } from './key-index-log';
import type { Logger } from './logger';

describe('the key index build log', () => {
  it('logs the start, progress at most every interval, the end, and a failure', () => {
    const lines: Array<[string, Record<string, unknown>, string]> = [];
    const line = (level: string) => (fields: Record<string, unknown>, message: string) =>
      lines.push([level, fields, message]);
    const log = { info: line('info'), error: line('error') } as unknown as Logger;
    let clock = 0;
    const report = keyIndexLogger(log, 5000, () => clock);
    report({ done: 512, total: 2000, finished: false });
    clock = 1000;
    report({ done: 1024, total: 2000, finished: false });
    clock = 6000;
    report({ done: 1536, total: 2000, finished: false });
    report({ done: 2000, total: 2000, finished: true });
    report({ done: 10, total: 20, finished: true, error: 'disk full' });
    expect(lines.map(([level, , message]) => `${level} ${message}`)).toEqual([
      'info indexing the key store (once, in the background; the node answers meanwhile)',
      'info indexing the key store',
      'info key store indexed',
      'error key store index build stopped (the next start resumes it; calls still find every wallet by its file)',
    ]);
    expect(lines[1]![1]).toEqual({ done: 1536, files: 2000, percent: 76.8 });
  });
});
