/** The lab's report: JSON (the figures the issue names), a Markdown summary and an SVG plot. */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Acknowledged } from './load';
import type { PropagationSample, TipSample } from './metrics';
import { renderSvg } from './svg-plot';

export interface LabReport {
  nodes: number;
  /** How the nodes were given addresses: every address, or node 1's only (discovery). */
  bootstrap: 'all' | 'one';
  /** Seconds from the start until every node had its peers (run.ts meshUp). */
  peers_up_s: number;
  /** The connected network before the load: CPU per node, of the host, memory (run.ts idleCost). */
  idle: Record<string, unknown>;
  /** The host over the whole run (load, CPU, the nodes' memory). */
  system: Record<string, unknown>;
  latency_ms: { one_way: number; jitter: number };
  block_time_ms: number;
  duration_s: number;
  acknowledged: number;
  mined: number;
  lost: number;
  conflicting: number;
  lost_operations: Acknowledged[];
  partition_healed: boolean;
  producer_kill_survived: boolean;
  late_joiner_synced: boolean;
  sync_blocks_per_s: number | null;
  local_import_blocks_per_s: number | null;
  propagation_p50_ms: number;
  propagation_p99_ms: number;
  scenarios: Record<string, { pass: boolean; figures: Record<string, unknown>; notes: string[] }>;
  pass: boolean;
}

export async function writeReport(
  file: string,
  report: LabReport,
  samples: PropagationSample[],
  tips: TipSample[],
  startedAt: number,
): Promise<{ markdown: string; svg: string }> {
  const stem = basename(file).replace(/\.json$/, '');
  const svgFile = join(dirname(file), `${stem}.svg`);
  const mdFile = join(dirname(file), `${stem}.md`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  const seconds = (at: number) => (at - startedAt) / 1000;
  const nodes = [...new Set(tips.map((t) => t.node))].sort();
  const svg = renderSvg(
    [
      {
        title: 'Block propagation: delay of each block to each node after its first node had it',
        yLabel: 'ms',
        kind: 'points',
        reference: { y: 250, label: 'p99 target 250 ms' },
        series: nodes.map((name) => ({
          name,
          points: samples
            .filter((s) => s.node === name)
            .map((s) => [seconds(s.at), s.ms] as [number, number]),
        })),
      },
      {
        title: 'Tip height of each node',
        yLabel: 'height',
        kind: 'lines',
        series: nodes.map((name) => ({
          name,
          points: tips
            .filter((t) => t.node === name)
            .map((t) => [seconds(t.at), t.height] as [number, number]),
        })),
      },
    ],
    report.duration_s,
  );
  await writeFile(svgFile, svg);
  const rows = Object.entries(report.scenarios).map(
    ([name, s]) => `| ${name} | ${s.pass ? 'pass' : '**FAIL**'} | ${s.notes.join('; ')} |`,
  );
  const markdown = [
    `# Network lab: ${report.pass ? 'pass' : 'FAIL'}`,
    '',
    `${report.nodes} nodes in network namespaces (${report.bootstrap === 'one' ? "each given node 1's address only" : 'each given every address'}; all with their peers after ${report.peers_up_s} s), links ${report.latency_ms.one_way} ms +- ${report.latency_ms.jitter} ms one way (userspace relay), block time ${report.block_time_ms} ms, ${report.duration_s} s.`,
    '',
    `Host over the run: busy ${report.system.host_cpu_percent_mean}% of its cores on average (max ${report.system.host_cpu_percent_max}%), load average ${report.system.load1_mean} (max ${report.system.load1_max}); the nodes' memory at most ${report.system.nodes_rss_mb_max} MB. Idle before the load: ${report.idle.node_cpu_ms_per_s_mean} ms of CPU per second per node, host busy ${report.idle.host_cpu_percent_mean}%.`,
    '',
    '| figure | value |',
    '| --- | --- |',
    `| operations acknowledged | ${report.acknowledged} |`,
    `| mined | ${report.mined} |`,
    `| conflicting (double spends reported) | ${report.conflicting} |`,
    `| **lost** | **${report.lost}** |`,
    `| propagation p50 / p99 | ${report.propagation_p50_ms} / ${report.propagation_p99_ms} ms |`,
    `| partition healed | ${report.partition_healed} |`,
    `| producer kill survived | ${report.producer_kill_survived} |`,
    `| late joiner synced | ${report.late_joiner_synced} (${report.sync_blocks_per_s ?? '-'} blocks/s from its first block; local import ${report.local_import_blocks_per_s ?? '-'} blocks/s) |`,
    '',
    '| scenario | result | notes |',
    '| --- | --- | --- |',
    ...rows,
    '',
    `![propagation latency and tip heights](${basename(svgFile)})`,
    '',
  ].join('\n');
  await writeFile(mdFile, markdown);
  return { markdown: mdFile, svg: svgFile };
}
