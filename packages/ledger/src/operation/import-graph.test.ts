import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Source files of this folder (tests left out): their text by file name. */
function sources(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.ts') && !file.endsWith('.test.ts')) {
      out.set(file, readFileSync(join(dir, file), 'utf8'));
    }
  }
  return out;
}

/** Files of this folder that `source` imports (types included), as file names. */
function importsOf(source: string): string[] {
  return [...source.matchAll(/from '\.\/([\w-]+)'/g)].map((m) => `${m[1]}.ts`);
}

describe('operation module imports', () => {
  it('the registry imports none of the operation types registered into it (no circle)', () => {
    const files = sources(import.meta.dirname);
    const operationTypes = [...files]
      .filter(([, source]) => /export const \w+: OperationType</.test(source))
      .map(([file]) => file);
    expect(operationTypes).toEqual(expect.arrayContaining(['activation.ts', 'transfer.ts']));
    for (const file of operationTypes) expect(importsOf(files.get(file)!)).toContain('registry.ts');
    const registryImports = importsOf(files.get('registry.ts')!);
    expect(registryImports.filter((file) => operationTypes.includes(file))).toEqual([]);
  });
});
