import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { levelDbBuild } from '@chain/ledger';
import type { BenchContext, Figure } from './benchmark.js';
import type { SuiteResult } from './suite.js';

export interface ResultsFile {
  generatedAt: string;
  settings: Pick<BenchContext, 'durationSec' | 'warmupSec' | 'connections'>;
  environment: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    /** Whether the node's LevelDB compacts for reads (the prebuilt classic-level) or not. */
    levelDbSeekCompactions: boolean;
    /** Whether it maps its table files into the process (their pages then count in its RSS). */
    levelDbMapsTableFiles: boolean;
  };
  figures: Figure[];
  errors: SuiteResult['errors'];
  pass: boolean;
}

export async function writeResults(
  file: string,
  result: SuiteResult,
  settings: ResultsFile['settings'],
  pass: boolean,
): Promise<ResultsFile> {
  const cpuList = cpus();
  const contents: ResultsFile = {
    generatedAt: new Date().toISOString(),
    settings,
    environment: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model ?? 'unknown',
      levelDbSeekCompactions: levelDbBuild().seekCompactions,
      levelDbMapsTableFiles: levelDbBuild().mapsTableFiles,
    },
    figures: result.figures,
    errors: result.errors,
    pass,
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(contents, null, 2)}\n`);
  return contents;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

function targetText(figure: Figure): string {
  if (figure.targetOf === 'none') return 'reference';
  if (figure.targetOf === 'value') return `>= ${formatNumber(figure.target)} ${figure.unit}`;
  if (figure.targetOf === 'max') return `<= ${formatNumber(figure.target)} ${figure.unit}`;
  return `>= ${formatNumber(figure.target)}`;
}

/** The figures as an aligned text table, then the benchmarks that failed. */
export function formatTable(result: SuiteResult): string {
  const header = [
    'figure',
    'value',
    'ceiling',
    'ratio',
    'target',
    'result',
    'p50 / p99 ms (ceiling)',
  ];
  const rows = result.figures.map((figure) => [
    figure.name,
    `${formatNumber(figure.value)} ${figure.unit}`,
    `${formatNumber(figure.ceiling)} ${figure.unit} (${figure.ceilingName})`,
    figure.targetOf === 'none'
      ? '-'
      : figure.rounds === undefined
        ? figure.ratio.toFixed(3)
        : `${figure.ratio.toFixed(3)} (median of ${figure.rounds.map((r) => r.toFixed(3)).join(', ')})`,
    targetText(figure),
    figure.pass ? 'pass' : 'FAIL',
    figure.latency === undefined
      ? ''
      : `${formatNumber(figure.latency.p50Ms)} / ${formatNumber(figure.latency.p99Ms)} ` +
        `(${formatNumber(figure.latency.ceilingP50Ms)} / ${formatNumber(figure.latency.ceilingP99Ms)})`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  const lines = [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
  if (result.figures.length === 0) lines.push('(no figures)');
  for (const { benchmark, error } of result.errors) lines.push(`ERROR ${benchmark}: ${error}`);
  return lines.join('\n');
}
