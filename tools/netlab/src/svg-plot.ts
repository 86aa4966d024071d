/**
 * A small SVG writer for the lab's summary: one panel of points (propagation delay of each block to
 * each node over time) above one panel of lines (each node's tip height over time). No browser, no
 * dependency: the figure is plain SVG text.
 */

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

export interface Panel {
  title: string;
  yLabel: string;
  kind: 'points' | 'lines';
  series: Series[];
  /** Horizontal reference line (e.g. the p99 target). */
  reference?: { y: number; label: string };
}

const COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];
const WIDTH = 900;
const PANEL_HEIGHT = 260;
const MARGIN = { left: 70, right: 150, top: 30, bottom: 40 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function panelSvg(panel: Panel, top: number, xMax: number): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const ys = panel.series.flatMap((s) => s.points.map(([, y]) => y));
  const yMax = niceMax(Math.max(...ys, panel.reference?.y ?? 0));
  const x = (v: number) => MARGIN.left + (v / (xMax || 1)) * plotW;
  const y = (v: number) => top + MARGIN.top + plotH - (v / yMax) * plotH;
  const out: string[] = [
    `<text x="${MARGIN.left}" y="${top + 18}" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`,
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const value = (yMax * k) / 4;
    out.push(
      `<text x="${MARGIN.left - 6}" y="${y(value) + 4}" font-size="11" text-anchor="end">${Math.round(value)}</text>`,
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(value)}" y2="${y(value)}" stroke="#eee"/>`,
    );
    const t = (xMax * k) / 4;
    out.push(
      `<text x="${x(t)}" y="${top + PANEL_HEIGHT - 22}" font-size="11" text-anchor="middle">${Math.round(t)} s</text>`,
    );
  }
  out.push(
    `<text x="16" y="${top + MARGIN.top + plotH / 2}" font-size="11" transform="rotate(-90 16 ${top + MARGIN.top + plotH / 2})" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
  );
  if (panel.reference) {
    const ry = y(panel.reference.y);
    out.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${ry}" y2="${ry}" stroke="#d62728" stroke-dasharray="6 4"/>`,
      `<text x="${MARGIN.left + plotW - 4}" y="${ry - 4}" font-size="11" fill="#d62728" text-anchor="end">${escapeXml(panel.reference.label)}</text>`,
    );
  }
  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]!;
    if (panel.kind === 'points') {
      for (const [px, py] of series.points) {
        out.push(
          `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2" fill="${color}" fill-opacity="0.7"/>`,
        );
      }
    } else if (series.points.length > 0) {
      const path = series.points
        .map(([px, py], k) => `${k === 0 ? 'M' : 'L'}${x(px).toFixed(1)},${y(py).toFixed(1)}`)
        .join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    }
    const ly = top + MARGIN.top + 12 + i * 16;
    out.push(
      `<rect x="${WIDTH - MARGIN.right + 12}" y="${ly - 9}" width="10" height="10" fill="${color}"/>`,
      `<text x="${WIDTH - MARGIN.right + 28}" y="${ly}" font-size="11">${escapeXml(series.name)}</text>`,
    );
  });
  return out.join('\n');
}

/** Panels stacked vertically, sharing the time axis (seconds since the start). */
export function renderSvg(panels: Panel[], xMax: number): string {
  const height = panels.length * PANEL_HEIGHT;
  const body = panels.map((panel, i) => panelSvg(panel, i * PANEL_HEIGHT, xMax)).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${body}\n</svg>\n`;
}
