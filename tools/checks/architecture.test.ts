import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, 'architecture.mjs');
const WORKSPACE = join(import.meta.dirname, '..', '..');

function runCheck(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], {
    cwd: WORKSPACE,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'architecture-test-'));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function writeFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('against the real workspace and Nx graph', () => {
  it('fails when the table no longer allows an edge the workspace has', () => {
    // rpc-client -> spec is declared in apps/rpc-client/package.json and imported by its sources.
    const original = readFileSync(join(WORKSPACE, 'docs', 'architecture.md'), 'utf8');
    const row = /^\| @chain\/rpc-client \| @chain\/spec, @chain\/offline \|$/m;
    expect(original).toMatch(row);
    const table = writeFile(
      join(scratch, 'edge-removed.md'),
      original.replace(row, '| @chain/rpc-client | @chain/offline |'),
    );

    const { status, output } = runCheck(['--table', table]);

    expect(status).toBe(1);
    expect(output).toContain('@chain/rpc-client -> @chain/spec is not allowed by the table');
  });

  it('fails when a project is missing from the table', () => {
    const original = readFileSync(join(WORKSPACE, 'docs', 'architecture.md'), 'utf8');
    const row = /^\| @chain\/ophash \| .*\|\n/m;
    expect(original).toMatch(row);
    const table = writeFile(join(scratch, 'row-removed.md'), original.replace(row, ''));

    const { status, output } = runCheck(['--table', table]);

    expect(status).toBe(1);
    expect(output).toContain('project @chain/ophash (packages/ophash) is missing from the');
  });
});

/**
 * A small fake workspace: a graph file in the shape `nx graph --file` writes, and source files, so
 * each rule can be exercised on its own.
 */
function fakeWorkspace(
  name: string,
  options: {
    table: Array<[string, string]>;
    graphEdges: Array<[string, string]>;
    sources?: Record<string, string>;
  },
): string[] {
  const root = join(scratch, name);
  const projects = { '@x/a': 'packages/a', '@x/b': 'packages/b', '@x/app': 'apps/app' };
  const nodes = Object.fromEntries(
    Object.entries(projects).map(([project, projectRoot]) => [
      project,
      { name: project, type: 'lib', data: { root: projectRoot } },
    ]),
  );
  const dependencies: Record<
    string,
    Array<{ source: string; target: string; type: string }>
  > = Object.fromEntries(Object.keys(projects).map((project) => [project, []]));
  for (const [source, target] of options.graphEdges) {
    dependencies[source].push({ source, target, type: 'static' });
  }
  dependencies['@x/a'].push({ source: '@x/a', target: 'npm:left-pad', type: 'static' });
  const graph = writeFile(
    join(root, 'graph.json'),
    JSON.stringify({ graph: { nodes, dependencies } }),
  );
  const table = writeFile(
    join(root, 'architecture.md'),
    [
      '# Architecture',
      '',
      '## Allowed imports',
      '',
      'Some words before the table.',
      '',
      '| package | may import |',
      '|---|---|',
      ...options.table.map(([project, imports]) => `| ${project} | ${imports} |`),
      '',
      '## Errors',
      '',
      '| not | this table |',
      '|---|---|',
      '| @x/b | @x/a |',
    ].join('\n'),
  );
  for (const [file, text] of Object.entries(options.sources ?? {}))
    writeFile(join(root, file), text);
  return ['--root', root, '--table', table, '--graph', graph];
}

const CONSISTENT_TABLE: Array<[string, string]> = [
  ['@x/a', '—'],
  ['@x/b', '@x/a'],
  ['@x/app', '@x/a, @x/b'],
];

describe('rules, on a fake workspace', () => {
  it('passes when every edge is allowed and there is no cycle', () => {
    const args = fakeWorkspace('consistent', {
      table: CONSISTENT_TABLE,
      graphEdges: [
        ['@x/b', '@x/a'],
        ['@x/app', '@x/b'],
      ],
      sources: {
        'apps/app/src/main.ts': "import { a } from '@x/a';\nimport { b } from '@x/b/sub';\n",
        'packages/a/src/index.ts': "import pad from 'left-pad';\nexport const a = pad;\n",
      },
    });

    const { status, output } = runCheck(args);

    expect(output).toContain('architecture check passed');
    expect(status).toBe(0);
  });

  it('catches an import that only the sources show, in any import form, tests included', () => {
    // dist/ is build output, not source: its import of @x/b must not be reported.
    const args = fakeWorkspace('undeclared-import', {
      table: CONSISTENT_TABLE,
      graphEdges: [['@x/b', '@x/a']],
      sources: {
        'packages/a/src/deep/dynamic.ts': "export const load = () => import('@x/b');\n",
        'packages/a/src/reexport.ts': "export * from '@x/app/feature';\n",
        'packages/a/test/side-effect.test.ts': "import '@x/app';\n",
        'packages/a/src/types.d.ts': "import type { B } from '@x/b';\n",
        'packages/a/dist/index.js': "import '@x/b/from-dist';\n",
      },
    });

    const { status, output } = runCheck(args);

    expect(status).toBe(1);
    expect(output).toContain(
      '@x/a -> @x/b is not allowed by the table (found in: packages/a/src/deep/dynamic.ts, packages/a/src/types.d.ts)',
    );
    expect(output).toMatch(
      /@x\/a -> @x\/app is not allowed by the table \(found in: packages\/a\/src\/reexport\.ts, packages\/a\/test\/side-effect\.test\.ts\)/,
    );
    // @x/b and @x/app import each other through @x/a's imports of them: b -> a -> b.
    expect(output).toContain('dependency cycle: @x/a -> @x/b -> @x/a');
  });

  it('reports a cycle even when the table allows every edge of it', () => {
    const args = fakeWorkspace('cycle', {
      table: [
        ['@x/a', '@x/app'],
        ['@x/b', '@x/a'],
        ['@x/app', '@x/b'],
      ],
      graphEdges: [
        ['@x/a', '@x/app'],
        ['@x/b', '@x/a'],
        ['@x/app', '@x/b'],
      ],
    });

    const { status, output } = runCheck(args);

    expect(status).toBe(1);
    expect(output).toContain('dependency cycle: @x/a -> @x/app -> @x/b -> @x/a');
    expect(output).not.toContain('is not allowed');
  });

  it('reports a project the table does not list', () => {
    const args = fakeWorkspace('missing-row', {
      table: CONSISTENT_TABLE.slice(0, 2),
      graphEdges: [],
    });

    const { status, output } = runCheck(args);

    expect(status).toBe(1);
    expect(output).toContain(
      'project @x/app (apps/app) is missing from the "Allowed imports" table',
    );
  });

  it('exits 2 with a message when the table cannot be found', () => {
    const args = fakeWorkspace('no-table', { table: CONSISTENT_TABLE, graphEdges: [] });
    const table = writeFile(join(scratch, 'no-table', 'empty.md'), '# Architecture\n\nNo table.\n');

    const { status, output } = runCheck([...args, '--table', table]);

    expect(status).toBe(2);
    expect(output).toContain('no "## Allowed imports" heading');
  });
});
