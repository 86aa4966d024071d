import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_P2P_OPTIONS, resolveP2POptions } from './p2p-options';

/** The modules `@chain/p2p-libp2p/options` loads, and what each may import at run time. */
const OPTIONS_ENTRY = ['p2p-options.ts', 'wire/message-table.ts'];
const RUNTIME_IMPORTS_ALLOWED = ['@chain/spec', './wire/message-table'];

describe('@chain/p2p-libp2p/options', () => {
  it('loads nothing heavy: its modules import only types at run time, libp2p none', () => {
    for (const file of OPTIONS_ENTRY) {
      const text = readFileSync(join(import.meta.dirname, file), 'utf8');
      for (const match of text.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gms)) {
        expect(RUNTIME_IMPORTS_ALLOWED, `${file} imports ${match[1]}`).toContain(match[1]);
      }
    }
  });

  it('merges the given options over the defaults, undefined ones left out', () => {
    const resolved = resolveP2POptions({
      chain: {} as never,
      dir: '/tmp/p2p',
      appVersion: '1',
      netProtocol: { ver: 1, ver_a: 1 },
      port: 0,
      maxConnections: undefined,
    });
    expect(resolved).toMatchObject({ dir: '/tmp/p2p', port: 0 });
    expect(resolved.maxConnections).toBe(DEFAULT_P2P_OPTIONS.maxConnections);
    expect(resolved).not.toHaveProperty('chain');
  });
});
