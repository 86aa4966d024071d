/**
 * Reading a node's Prometheus metrics in tests: the listener's URL from the start banner, one
 * scrape, sample values by name and labels, and promtool's verdict when the machine has it
 * (Debian package `prometheus`).
 */
import { spawnSync } from 'node:child_process';
import type { NodeProcess } from './node-process';

/** The metrics URL the node printed (`metrics  http://...`), or undefined without --metrics. */
export function metricsUrl(node: NodeProcess): string | undefined {
  return /^\s+metrics\s+(http:\/\/\S+)/m.exec(node.stdout())?.[1];
}

export async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return response.text();
}

/**
 * The value of the sample `name{labels}` (labels in any order; none given: the sample without
 * labels), or undefined when the exposition has no such sample.
 */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (have.size !== wanted.length) continue;
    if (wanted.every(([key, value]) => have.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}

/** promtool's lint of an exposition: undefined when promtool is not installed. */
export function promtoolCheck(text: string): { status: number; output: string } | undefined {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error !== undefined) return undefined;
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}
