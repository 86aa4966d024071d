#!/usr/bin/env node
// @ts-check
/**
 * Architecture check: the workspace dependency graph must match the "Allowed imports" table of
 * docs/architecture.md.
 *
 * Two sources of edges are compared with the table:
 *  - the project graph Nx derives from source imports and package.json files (`nx graph --file`);
 *  - a direct scan of the source files for imports of workspace packages, so an import that no
 *    package.json declares (and that Nx might therefore miss) is still caught. Tests count too.
 *
 * Fails (exit 1) on an edge the table does not allow, on a project missing from the table and on any
 * dependency cycle. Exit 2 on a usage or setup error.
 *
 * Usage: node tools/checks/architecture.mjs [--table <markdown file>] [--graph <nx graph json>]
 *                                           [--root <workspace dir>]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const TABLE_HEADING = /^#{2,}\s+Allowed imports\s*$/;
const NO_IMPORTS = new Set(['—', '-', '–', '']);
const SOURCE_DIRS = ['src', 'test'];
const SOURCE_FILE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.nx']);

/** @typedef {{ source: string, target: string, via: string }} Edge */
/** @typedef {{ name: string, root: string }} Project */

class UsageError extends Error {}

/**
 * Reads the "Allowed imports" table: the first Markdown table after the heading.
 * @param {string} markdown
 * @param {string} file for messages
 * @returns {Map<string, Set<string>>} package -> packages it may import
 */
export function parseAllowedImports(markdown, file) {
  const lines = markdown.split(/\r?\n/);
  const heading = lines.findIndex((line) => TABLE_HEADING.test(line));
  if (heading === -1) throw new UsageError(`${file}: no "## Allowed imports" heading`);
  const allowed = new Map();
  let rowIndex = 0;
  for (let i = heading + 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (/^#{1,6}\s/.test(line)) break;
    if (!line.startsWith('|')) {
      if (allowed.size > 0 || rowIndex > 0) break;
      continue;
    }
    rowIndex++;
    const cells = line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((cell) => cell.trim().replaceAll('`', ''));
    if (rowIndex === 1 || cells.every((cell) => /^:?-+:?$/.test(cell))) continue; // header, rule
    const [name, imports = ''] = cells;
    if (allowed.has(name)) throw new UsageError(`${file}: "${name}" appears twice in the table`);
    const targets = NO_IMPORTS.has(imports)
      ? []
      : imports
          .split(',')
          .map((target) => target.trim())
          .filter((target) => !NO_IMPORTS.has(target));
    allowed.set(name, new Set(targets));
  }
  if (allowed.size === 0) throw new UsageError(`${file}: the "Allowed imports" table is empty`);
  return allowed;
}

/**
 * @param {string} root
 * @param {string | undefined} graphFile a graph written earlier by `nx graph --file`, for tests
 * @returns {{ projects: Project[], edges: Edge[] }}
 */
function readNxGraph(root, graphFile) {
  let file = graphFile;
  let scratch;
  if (file === undefined) {
    scratch = mkdtempSync(join(tmpdir(), 'architecture-'));
    file = join(scratch, 'graph.json');
    try {
      execFileSync('npx', ['nx', 'graph', `--file=${file}`], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NX_TUI: 'false' },
      });
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true });
      const stderr = /** @type {{ stderr?: Buffer }} */ (error).stderr?.toString() ?? '';
      throw new UsageError(`nx graph failed:\n${stderr}`);
    }
  }
  try {
    const { graph } = JSON.parse(readFileSync(file, 'utf8'));
    /** @type {Project[]} */
    const projects = Object.values(graph.nodes).map((node) => ({
      name: node.name,
      root: node.data.root,
    }));
    const names = new Set(projects.map((project) => project.name));
    /** @type {Edge[]} */
    const edges = [];
    for (const deps of Object.values(graph.dependencies)) {
      for (const dep of /** @type {Array<{ source: string, target: string }>} */ (deps)) {
        // Third-party packages are `npm:` nodes; only workspace edges are governed by the table.
        if (names.has(dep.source) && names.has(dep.target) && dep.source !== dep.target) {
          edges.push({ source: dep.source, target: dep.target, via: 'nx project graph' });
        }
      }
    }
    return { projects, edges };
  } finally {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * @param {string} dir
 * @returns {string[]}
 */
function listSourceFiles(dir) {
  /** @type {string[]} */
  const files = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...listSourceFiles(join(dir, entry.name)));
    } else if (SOURCE_FILE.test(entry.name)) {
      files.push(join(dir, entry.name));
    }
  }
  return files;
}

/**
 * Every import of a workspace package written in a project's sources: static and dynamic imports,
 * re-exports and `require`.
 * @param {string} root
 * @param {Project[]} projects
 * @returns {Edge[]}
 */
export function scanSourceImports(root, projects) {
  const names = new Set(projects.map((project) => project.name));
  const specifier =
    /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]((?:@[^'"/\s]+\/)?[^'"/\s]+)(?:\/[^'"]*)?['"]/g;
  /** @type {Edge[]} */
  const edges = [];
  for (const project of projects) {
    for (const dir of SOURCE_DIRS) {
      for (const file of listSourceFiles(join(root, project.root, dir))) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(specifier)) {
          const target = match[1];
          if (names.has(target) && target !== project.name) {
            edges.push({ source: project.name, target, via: relative(root, file) });
          }
        }
      }
    }
  }
  return edges;
}

/**
 * Cycles of the graph, each as the list of projects along it (first repeated at the end).
 * @param {Iterable<Edge>} edges
 * @returns {string[][]}
 */
export function findCycles(edges) {
  /** @type {Map<string, Set<string>>} */
  const next = new Map();
  for (const { source, target } of edges) {
    if (!next.has(source)) next.set(source, new Set());
    next.get(source)?.add(target);
  }
  /** @type {Map<string, 'active' | 'done'>} */
  const state = new Map();
  /** @type {string[]} */
  const path = [];
  /** @type {string[][]} */
  const cycles = [];
  /** @param {string} node */
  const visit = (node) => {
    state.set(node, 'active');
    path.push(node);
    for (const target of [...(next.get(node) ?? [])].sort()) {
      const seen = state.get(target);
      if (seen === 'active') cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (seen === undefined) visit(target);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...next.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * @param {{ root: string, tableFile: string, graphFile?: string }} options
 * @returns {string[]} the violations, empty when the graph matches the table
 */
export function checkArchitecture({ root, tableFile, graphFile }) {
  const allowed = parseAllowedImports(readFileSync(tableFile, 'utf8'), relative(root, tableFile));
  const { projects, edges: graphEdges } = readNxGraph(root, graphFile);
  const sourceEdges = scanSourceImports(root, projects);
  /** @type {string[]} */
  const violations = [];

  for (const project of [...projects].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!allowed.has(project.name)) {
      violations.push(
        `project ${project.name} (${project.root}) is missing from the "Allowed imports" table`,
      );
    }
  }

  /** @type {Map<string, Edge[]>} */
  const bySourceAndTarget = new Map();
  for (const edge of [...graphEdges, ...sourceEdges]) {
    const key = `${edge.source} -> ${edge.target}`;
    bySourceAndTarget.set(key, [...(bySourceAndTarget.get(key) ?? []), edge]);
  }
  for (const [key, found] of [...bySourceAndTarget].sort(([a], [b]) => a.localeCompare(b))) {
    const { source, target } = found[0];
    const mayImport = allowed.get(source);
    if (mayImport === undefined || mayImport.has(target)) continue;
    const where = [...new Set(found.map((edge) => edge.via))].slice(0, 5).join(', ');
    violations.push(`${key} is not allowed by the table (found in: ${where})`);
  }

  for (const cycle of findCycles([...bySourceAndTarget.values()].map((found) => found[0]))) {
    violations.push(`dependency cycle: ${cycle.join(' -> ')}`);
  }
  return violations;
}

function main() {
  const { values } = parseArgs({
    options: {
      table: { type: 'string' },
      graph: { type: 'string' },
      root: { type: 'string' },
    },
  });
  const root = resolve(values.root ?? join(import.meta.dirname, '..', '..'));
  const tableFile = resolve(values.table ?? join(root, 'docs', 'architecture.md'));
  const violations = checkArchitecture({ root, tableFile, graphFile: values.graph });
  if (violations.length > 0) {
    console.error(`architecture check failed (${relative(root, tableFile)}):`);
    for (const violation of violations) console.error(`  - ${violation}`);
    process.exitCode = 1;
    return;
  }
  console.log(`architecture check passed (${relative(root, tableFile)})`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`architecture check could not run: ${error.message}`);
    process.exitCode = 2;
  }
}
