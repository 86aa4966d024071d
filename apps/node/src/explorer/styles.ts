/** The explorer page's own style sheet: system fonts, light and dark schemes, visible focus. */
export const EXPLORER_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --stripe: #f6f8fa;
  --accent: #0b57d0; --accent-fg: #ffffff; --problem-bg: #fff1f0; --problem-fg: #8c1d18;
  --grid: #d0d7de;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  line-height: 1.5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --stripe: #161b22;
    --accent: #79b8ff; --accent-fg: #0d1117; --problem-bg: #3d1214; --problem-fg: #ffb4ab;
    --grid: #4a525c;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px;
}
.skip-link { position: absolute; left: -10000px; top: 0; }
.skip-link:focus { left: 1rem; top: 1rem; padding: .5rem 1rem; background: var(--bg); z-index: 1; }
header { border-bottom: 1px solid var(--line); background: var(--stripe); }
.bar, main, footer { max-width: 76rem; margin: 0 auto; padding: .75rem 1rem; }
.bar { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; }
.brand { margin: 0; font-weight: 700; font-size: 1.15rem; }
.brand a { color: var(--fg); text-decoration: none; }
nav ul { list-style: none; display: flex; gap: 1rem; margin: 0; padding: 0; }
form[role="search"] { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; flex: 1 1 22rem; }
form[role="search"] input { flex: 1 1 18rem; min-width: 0; padding: .4rem .5rem; font: inherit;
  border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
form[role="search"] input[aria-invalid="true"] { border-color: var(--problem-fg); }
button { font: inherit; padding: .4rem .8rem; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-fg); cursor: pointer; }
button[aria-pressed="false"] { background: transparent; color: var(--accent); }
.hint, .search-error { flex-basis: 100%; margin: 0; font-size: .85rem; color: var(--muted); }
.search-error:empty { display: none; }
.search-error { color: var(--problem-fg); }
main:focus { outline: none; }
h2 { font-size: 1.4rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
#status { min-height: 1.5em; margin: 0; color: var(--muted); font-size: .9rem; }
.problem { padding: .5rem .75rem; border-radius: 4px; background: var(--problem-bg); color: var(--problem-fg); }
.reorg { padding: .5rem .75rem; border-radius: 4px; border: 1px solid var(--problem-fg); }
.reorg.deep { background: var(--problem-bg); color: var(--problem-fg); }
.notice { color: var(--muted); }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em;
  overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; position: absolute; left: -10000px; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { color: var(--muted); font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--stripe); }
.facts { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .25rem 1rem; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; gap: 1.5rem; margin-bottom: .5rem; }
progress { width: min(20rem, 100%); vertical-align: middle; }
.activity { margin: 0; }
.activity figcaption { color: var(--muted); font-size: .85rem; margin-top: .25rem; }
.chart { width: 100%; min-height: 220px; }
.u-legend { color: var(--fg); font-size: .85rem; }
.u-legend th, .u-legend td { border-bottom: none; }
.u-legend tr { background: transparent; }
.tree, .tree ul { list-style: none; margin: 0; padding-left: 1.5rem; }
.tree { padding-left: 0; }
.tree li { border-left: 2px solid var(--line); padding-left: .75rem; }
.node { margin: .35rem 0; }
.node.shown { background: var(--stripe); }
.role { display: inline-block; min-width: 5rem; }
footer { color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); }
`;
