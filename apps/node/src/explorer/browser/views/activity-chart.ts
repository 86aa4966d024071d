/**
 * The live chart of the latest blocks: operations per block (bars, left axis) and the interval
 * since the previous block (line, right axis), drawn by uPlot. Its style sheet is uPlot's own,
 * which the bundle emits beside the script and the page inlines (../../serve.ts).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { BlockInfo } from '../chain-data';
import { h } from '../dom';

/** How many of the latest blocks the chart shows. */
export const CHART_BLOCKS = 50;
const HEIGHT = 220;
const FALLBACK_WIDTH = 600;

export interface ActivityChart {
  /** The figure to put on the page; call `draw` once it is in the document. */
  element: HTMLElement;
  /** Draws the chart at the width the page gives it, and follows that width. */
  draw(): void;
  /** Adds (or, for a height seen before, replaces) blocks; the oldest fall off past CHART_BLOCKS. */
  add(blocks: BlockInfo[]): void;
  destroy(): void;
}

type Columns = [number[], Array<number | null>, Array<number | null>];

export function activityChart(initial: BlockInfo[]): ActivityChart {
  const byNumber = new Map<number, BlockInfo>();
  const canvasBox = h('div', { class: 'chart' });
  const caption = h('figcaption');
  const element = h('figure', { class: 'activity' }, canvasBox, caption);
  let plot: uPlot | undefined;
  let resizes: ResizeObserver | undefined;
  // The chart's colours come from the page's (light or dark) scheme: a change of scheme redraws it.
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const redraw = () => {
    if (plot === undefined) return;
    plot.destroy();
    plot = plotIn(canvasBox, width(), columns(), element);
  };

  function columns(): Columns {
    const numbers = [...byNumber.keys()].sort((a, b) => a - b);
    const operations = numbers.map((n) => byNumber.get(n)!.operations);
    // The interval needs the previous block, so the oldest shown block has none; nor has block 1:
    // the genesis time is the network's launch date, set in its config, not a block's production.
    const intervals = numbers.map((n) => {
      const previous = byNumber.get(n - 1);
      return previous === undefined || n === 1
        ? null
        : Number(byNumber.get(n)!.timestamp) - Number(previous.timestamp);
    });
    return [numbers, operations, intervals];
  }

  function describe([numbers, operations, intervals]: Columns): void {
    const last = numbers.length - 1;
    element.setAttribute('data-blocks', String(numbers.length));
    element.setAttribute('data-last-block', last < 0 ? '' : String(numbers[last]));
    const what =
      'Operations per block (bars, left axis) and seconds since the previous block (line, right axis)';
    if (last < 0) {
      caption.textContent = `${what}: no blocks yet.`;
      return;
    }
    const count = operations[last] ?? 0;
    const interval = intervals[last];
    caption.textContent =
      `${what}, blocks ${numbers[0]} to ${numbers[last]}. Latest: block ${numbers[last]}, ` +
      `${count} operation${count === 1 ? '' : 's'}` +
      (interval === null || interval === undefined ? '.' : `, ${interval} s after the previous.`);
  }

  function keep(blocks: BlockInfo[]): void {
    for (const block of blocks) byNumber.set(block.block, block);
    const numbers = [...byNumber.keys()].sort((a, b) => a - b);
    // A block after a gap (held updates, catch-up limit) keeps the window contiguous at its end.
    const newest = numbers[numbers.length - 1] ?? 0;
    for (const n of numbers) if (n <= newest - CHART_BLOCKS) byNumber.delete(n);
  }

  function width(): number {
    return Math.floor(canvasBox.clientWidth) || FALLBACK_WIDTH;
  }

  keep(initial);
  describe(columns());

  return {
    element,
    draw() {
      plot = plotIn(canvasBox, width(), columns(), element);
      resizes = new ResizeObserver(() => plot?.setSize({ width: width(), height: HEIGHT }));
      resizes.observe(canvasBox);
      scheme.addEventListener('change', redraw);
    },
    add(blocks) {
      if (blocks.length === 0) return;
      keep(blocks);
      const data = columns();
      plot?.setData(data);
      // Away from the cursor the legend shows the latest block's values (see `latestOr`).
      if (plot !== undefined && plot.cursor.idx == null)
        plot.setLegend({ idxs: [null, null, null] });
      describe(data);
    },
    destroy() {
      scheme.removeEventListener('change', redraw);
      resizes?.disconnect();
      plot?.destroy();
    },
  };
}

/** A uPlot chart of `data` in `box`; the figure keeps the grid colour it drew with (`data-grid`). */
function plotIn(box: HTMLElement, width: number, data: Columns, figure: HTMLElement): uPlot {
  const options: uPlot.Options = {
    ...chartOptions(width),
    hooks: { setScale: [(u, key) => key === 'x' && keepXRange(u, figure)] },
  };
  figure.setAttribute('data-grid', gridColor());
  return new uPlot(options, data, box);
}

/** The figure keeps the block range its x axis spans (`data-x-min`, `data-x-max`). */
function keepXRange(plot: uPlot, figure: HTMLElement): void {
  const { min, max } = plot.scales.x ?? {};
  figure.setAttribute('data-x-min', String(min ?? ''));
  figure.setAttribute('data-x-max', String(max ?? ''));
}

function gridColor(): string {
  return cssColor('--grid', '#d0d7de');
}

function cssColor(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/**
 * A legend value: the hovered block's, or, with the cursor away from the chart, the latest block's
 * (uPlot would show "--").
 */
function latestOr(u: uPlot, raw: number | null, seriesIdx: number, idx: number | null): string {
  const column = u.data[seriesIdx] ?? [];
  const value = idx == null ? column[column.length - 1] : raw;
  return value == null ? '–' : String(value);
}

function chartOptions(width: number): uPlot.Options {
  const text = cssColor('--muted', '#57606a');
  const grid = gridColor();
  const accent = cssColor('--accent', '#0b57d0');
  // Blocks, operations and whole seconds: ticks at whole numbers only.
  const incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000];
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, incrs };
  return {
    width,
    height: HEIGHT,
    scales: {
      // Half a block of room at each end, so the first and last bars are drawn whole.
      x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
      ops: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      s: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [
      { ...axis, label: 'block' },
      { ...axis, scale: 'ops', label: 'operations' },
      { ...axis, scale: 's', label: 'seconds', side: 1, size: 60, grid: { show: false } },
    ],
    series: [
      { label: 'Block', value: latestOr },
      {
        label: 'Operations',
        value: latestOr,
        scale: 'ops',
        stroke: accent,
        fill: `${accent}55`,
        paths: uPlot.paths.bars?.({ size: [0.6, 24] }),
        points: { show: false },
      },
      {
        label: 'Interval (s)',
        value: latestOr,
        scale: 's',
        stroke: '#d97706',
        width: 2,
        spanGaps: false,
      },
    ],
  };
}
