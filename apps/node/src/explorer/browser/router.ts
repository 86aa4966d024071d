/**
 * Hash routes (`#/`, `#/block/N`, `#/op/H`, `#/wallet/A`, `#/token/A`, `#/network`) to views, and
 * the live-update loop that refreshes the shown view.
 */
import { POLL_MS } from './chain-data';
import { heading, link, notice, replace } from './dom';
import { clearProblem, isLive, showProblem, status, view } from './page-frame';
import { blockView } from './views/block-view';
import { homeView } from './views/home-view';
import { networkView } from './views/network-view';
import { operationView } from './views/operation-view';
import { tokenView } from './views/token-view';
import type { ViewContext } from './views/view-context';
import { walletView } from './views/wallet-view';

let generation = 0;
let poll: (() => Promise<void>) | undefined;
let firstRender = true;

function showView(context: ViewContext, kind: string, arg: string): Promise<void> {
  if (kind === '') return homeView(context);
  if (kind === 'block') return blockView(context, arg);
  if (kind === 'op') return operationView(context, arg);
  if (kind === 'wallet') return walletView(context, arg);
  if (kind === 'token') return tokenView(context, arg);
  if (kind === 'network') return networkView(context);
  replace(
    view,
    heading('Not found'),
    notice('There is no such page.'),
    link('#/', 'Latest blocks'),
  );
  return Promise.resolve();
}

/** Shows the view of the current location hash. */
export async function navigate(): Promise<void> {
  const hash = location.hash;
  // In-page anchors (the skip link) are not routes.
  if (hash !== '' && hash !== '#' && !hash.startsWith('#/')) return;
  const current = ++generation;
  poll = undefined;
  const [kind = '', arg = ''] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const context: ViewContext = {
    stale: () => current !== generation,
    onPoll(refresh) {
      if (current === generation) poll = refresh;
    },
  };
  status.textContent = 'Loading…';
  try {
    await showView(context, kind, arg);
    if (context.stale()) return;
    clearProblem();
    if (status.textContent === 'Loading…') status.textContent = '';
    // Moving focus to the new heading tells screen readers the page changed (not on first load).
    if (!firstRender) view.querySelector<HTMLElement>('h2')?.focus();
  } catch (error) {
    if (context.stale()) return;
    status.textContent = '';
    showProblem(error);
  } finally {
    firstRender = false;
  }
}

async function tick(): Promise<void> {
  if (isLive() && poll !== undefined && !document.hidden) {
    try {
      await poll();
      clearProblem();
    } catch (error) {
      showProblem(error);
    }
  }
  setTimeout(tick, POLL_MS);
}

/** Follows the location hash and starts the live-update loop. */
export function startRouting(): void {
  window.addEventListener('hashchange', () => {
    void navigate();
  });
  void navigate();
  setTimeout(tick, POLL_MS);
}
