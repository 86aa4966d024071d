import { describe, expect, it } from 'vitest';
import { type CpuProfile, formatSummary, sourceOf, summarizeProfile } from './profile-summary.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

// root -> handler (packages/ledger) -> verify (node_modules/secp256k1); root -> (idle), (garbage collector)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
    { id: 2, callFrame: frame('handler', 'file:///w/packages/ledger/dist/a.js'), children: [3] },
    { id: 3, callFrame: frame('ecdsaVerify', 'file:///w/node_modules/secp256k1/lib/index.js') },
    { id: 4, callFrame: frame('(idle)') },
    { id: 5, callFrame: frame('(garbage collector)') },
  ],
  startTime: 0,
  endTime: 10_000,
  samples: [2, 3, 3, 4, 5, 3],
  timeDeltas: [1000, 1000, 1000, 5000, 1000, 1000],
};

describe('summarizeProfile', () => {
  it('splits busy from idle time and sums self, inclusive and per-source time', () => {
    const summary = summarizeProfile(profile);

    expect(summary).toMatchObject({ wallMs: 10, idleMs: 5, busyMs: 5 });
    expect(summary.bySource).toEqual([
      ['secp256k1', 3],
      ['packages/ledger', 1],
      ['(garbage collector)', 1],
    ]);
    expect(summary.self[0]).toEqual(['ecdsaVerify node_modules/secp256k1/lib/index.js:1', 3]);
    expect(summary.inclusive[0]).toEqual(['handler packages/ledger/dist/a.js:1', 4]);
    expect(formatSummary(summary, 2)).toContain('busy 5 ms, idle 5 ms');
  });

  it('names sources by package, workspace project or runtime', () => {
    expect(sourceOf(frame('f', 'file:///w/node_modules/@noble/hashes/sha2.js'))).toBe(
      '@noble/hashes',
    );
    expect(sourceOf(frame('f', 'node:internal/http'))).toBe('node internals');
    expect(sourceOf(frame('f', 'file:///w/apps/node/dist/x.js'))).toBe('apps/node');
    expect(sourceOf(frame('writev'))).toBe('writev');
  });
});
