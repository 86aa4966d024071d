/**
 * The reorganisation banner: when the node replaced some of its blocks with a peer's heavier branch
 * in the last RECENT_MS, the page says so above every view (blocks, balances and operations shown
 * before may have changed), with the blocks it concerns. The node's `lastreorg` at load, then each
 * `reorganizations` push.
 */
import { lastReorganization, type Reorganization, watchChain } from './chain-data';

/** A reorganisation is shown this long after the node adopted it. */
const RECENT_MS = 15 * 60 * 1000;

const banner = document.getElementById('reorg')!;
let hideTimer: ReturnType<typeof setTimeout> | undefined;

function bannerText(reorganization: Reorganization, ageMs: number): string {
  const minutes = Math.floor(ageMs / 60_000);
  const when = minutes < 1 ? 'less than a minute ago' : `${minutes} min ago`;
  const { depth, fork_block: fork, old_head: old, new_head: now } = reorganization;
  const blocks = depth === 1 ? 'block' : 'blocks';
  const what = reorganization.deep ? 'Deep reorganisation' : 'Reorganisation';
  return (
    `${what} ${when}: a peer's heavier branch (from ${reorganization.peer}) replaced this node's ` +
    `last ${depth} ${blocks} after block ${fork} (head ${old.block} ${old.hash.slice(0, 12)}… → ` +
    `${now.block} ${now.hash.slice(0, 12)}…). Operations of the replaced blocks that the new ` +
    'branch does not hold went back to the pool or were dropped.'
  );
}

function show(reorganization: Reorganization | null): void {
  if (reorganization === null) return;
  const ageMs = Math.max(0, Date.now() - reorganization.timestamp * 1000);
  if (ageMs >= RECENT_MS) return;
  banner.textContent = bannerText(reorganization, ageMs);
  banner.classList.toggle('deep', reorganization.deep);
  banner.hidden = false;
  clearTimeout(hideTimer);
  hideTimer = setTimeout(() => {
    banner.hidden = true;
  }, RECENT_MS - ageMs);
}

/** Shows the node's recent reorganisation, if any, and each new one. */
export function watchReorganizations(): void {
  lastReorganization()
    .then(show)
    .catch(() => undefined);
  watchChain({ reorganized: show });
}
