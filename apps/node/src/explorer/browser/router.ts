/**
 * Hash routes (`#/`, `#/block/N`, `#/block/0xHASH`, `#/op/H`, `#/wallet/A`, `#/token/A`,
 * `#/tokens/SYMBOL`, `#/network`, `#/producers`, `#/produced/A`, `#/participation[/A]`) to views, and live updates: what the data layer's feed says about the
 * chain goes to the shown view, held while the user pauses live updates.
 */
import { type BlockInfo, watchChain } from './chain-data';
import { noteHead } from './chain-format';
import { heading, link, notice, replace } from './dom';
import {
  clearProblem,
  isLive,
  showNodeBack,
  showNodeLost,
  showProblem,
  status,
  view,
  watchLiveSwitch,
} from './page-frame';
import { blockView } from './views/block-view';
import { homeView } from './views/home-view';
import { networkView } from './views/network-view';
import { operationView } from './views/operation-view';
import { participationView, topNodesView } from './views/participation-view';
import { producedView } from './views/produced-view';
import { producersView } from './views/producers-view';
import { tokenSearchView } from './views/token-search-view';
import { tokenView } from './views/token-view';
import type { ViewContext } from './views/view-context';
import { walletView } from './views/wallet-view';

let generation = 0;
let refreshView: (() => Promise<void>) | undefined;
let blocksListener: ((blocks: BlockInfo[]) => void) | undefined;
/** New blocks that came while live updates were paused, for the shown view when they resume. */
let heldBlocks: BlockInfo[] = [];
/** What the shown view asked to run when it goes. */
const leaving: Array<() => void> = [];
let refreshing = false;
let refreshAgain = false;
let firstRender = true;

function showView(context: ViewContext, kind: string, arg: string): Promise<void> {
  if (kind === '') return homeView(context);
  if (kind === 'block') return blockView(context, arg);
  if (kind === 'op') return operationView(context, arg);
  if (kind === 'wallet') return walletView(context, arg);
  if (kind === 'token') return tokenView(context, arg);
  if (kind === 'network') return networkView(context);
  if (kind === 'producers') return producersView(context);
  if (kind === 'produced') return producedView(context, arg);
  if (kind === 'tokens') return tokenSearchView(context, arg);
  if (kind === 'participation') {
    return arg === '' ? topNodesView(context) : participationView(context, arg);
  }
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
  for (const cleanup of leaving.splice(0)) cleanup();
  refreshView = undefined;
  blocksListener = undefined;
  heldBlocks = [];
  const [kind = '', arg = ''] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const context: ViewContext = {
    stale: () => current !== generation,
    onChainChange(refresh) {
      if (current === generation) refreshView = refresh;
    },
    onNewBlocks(listener) {
      if (current === generation) blocksListener = listener;
    },
    onLeave(cleanup) {
      if (current === generation) leaving.push(cleanup);
      else cleanup();
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

/** Refreshes the shown view; a change that comes during a refresh gets one more. */
async function refresh(): Promise<void> {
  if (!isLive()) return;
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    do {
      refreshAgain = false;
      await refreshView?.();
    } while (refreshAgain);
    clearProblem();
  } catch (error) {
    showProblem(error);
  } finally {
    refreshing = false;
  }
}

function newBlocks(blocks: BlockInfo[]): void {
  if (!isLive()) {
    heldBlocks.push(...blocks);
    return;
  }
  blocksListener?.(blocks);
  noteHeadOf(blocks);
}

/** Confirmation counts follow the newest of the blocks told (oldest first; a reorg's last). */
function noteHeadOf(blocks: BlockInfo[]): void {
  const last = blocks[blocks.length - 1];
  if (last !== undefined) noteHead(last.block);
}

function resume(): void {
  const held = heldBlocks;
  heldBlocks = [];
  if (held.length > 0) blocksListener?.(held);
  noteHeadOf(held);
  void refresh();
}

/** Follows the location hash and the chain. */
export function startRouting(): void {
  window.addEventListener('hashchange', () => {
    void navigate();
  });
  watchLiveSwitch(resume);
  void navigate();
  watchChain({
    blocks: newBlocks,
    changed: () => void refresh(),
    problem: showProblem,
    connection(state, since) {
      if (state === 'lost') showNodeLost(since);
      else showNodeBack();
    },
  });
}
