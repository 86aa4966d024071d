/**
 * Summary of a sampling heap profile (heap-sampling-preload.mjs, BENCH_NODE_HEAP_PROF=<dir>): bytes
 * allocated per call site (function, file:line), largest first, and optionally per operation.
 *   tsx tools/bench/src/heap-profile-summary.ts <file.heapprofile> [operations] [top]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number }[];
}
export interface AllocationSite {
  site: string;
  bytes: number;
}

/** Bytes sampled per allocating call site (the frame that allocated), largest first. */
export function allocationSites(profile: HeapProfile): AllocationSite[] {
  const siteOf = new Map<number, string>();
  const pending = [profile.head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*\/(packages|apps|node_modules)\//, '$1/');
    siteOf.set(node.id, `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`);
    pending.push(...node.children);
  }
  const bytes = new Map<string, number>();
  for (const { size, nodeId } of profile.samples) {
    const site = siteOf.get(nodeId) ?? '(unknown)';
    bytes.set(site, (bytes.get(site) ?? 0) + size);
  }
  return [...bytes].map(([site, b]) => ({ site, bytes: b })).sort((a, b) => b.bytes - a.bytes);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, operations, top] = process.argv.slice(2);
  if (file === undefined)
    throw new Error('usage: heap-profile-summary.ts <file> [operations] [top]');
  const sites = allocationSites(JSON.parse(readFileSync(file, 'utf8')) as HeapProfile);
  const ops = Number(operations ?? 1);
  const total = sites.reduce((sum, s) => sum + s.bytes, 0);
  console.log(`total ${(total / 1e6).toFixed(1)} MB, ${(total / ops).toFixed(0)} B per operation`);
  for (const { site, bytes } of sites.slice(0, Number(top ?? 30))) {
    console.log(
      `${(bytes / ops).toFixed(0).padStart(8)} B/op ${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${site}`,
    );
  }
}
