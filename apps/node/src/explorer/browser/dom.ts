/**
 * Building the page's DOM. Every value from the chain reaches the DOM as text (append of a string,
 * textContent), never as markup.
 */

export type Child = Node | string | number | null | undefined | false;

function appendChildren(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'object' ? child : String(child));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Record<string, string | number | boolean | undefined> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  appendChildren(element, children);
  return element;
}

/** A link whose focus survives a live re-render (found again by its key). */
export function link(href: string, text: Child, label?: string): HTMLAnchorElement {
  return h('a', { href, 'data-key': href, 'aria-label': label }, text);
}

export function mono(text: string): HTMLElement {
  return h('span', { class: 'mono' }, text);
}

/** Swaps a container's content; keyboard focus inside it moves to the same link in the new one. */
export function replace(container: Element, ...children: Child[]): void {
  const focused = document.activeElement;
  const key =
    focused instanceof HTMLElement && container.contains(focused)
      ? focused.getAttribute('data-key')
      : null;
  container.replaceChildren();
  appendChildren(container, children);
  if (key !== null) {
    container.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus();
  }
}

export function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return h('section', { 'aria-labelledby': id }, h('h3', { id }, title), ...children);
}

export function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  const head = h('tr', null, ...headers.map((text) => h('th', { scope: 'col' }, text)));
  const body = rows.map((cells) => h('tr', null, ...cells.map((cell) => h('td', null, cell))));
  // A scrollable region must be reachable by keyboard to scroll it.
  return h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      null,
      h('caption', null, caption),
      h('thead', null, head),
      h('tbody', null, ...body),
    ),
  );
}

export function facts(entries: Array<[Child, Child]>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...entries.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
  );
}

export function notice(text: string): HTMLElement {
  return h('p', { class: 'notice' }, text);
}

/** The view's heading; it also names the document. */
export function heading(title: string, ...extra: Child[]): HTMLElement {
  document.title = `${title} · chain-node explorer`;
  return h('h2', { tabindex: -1 }, title, ...extra);
}
