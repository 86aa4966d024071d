/**
 * The page's fixed frame (markup in `../page.ts`): the view container, the status line, the problem
 * banner and the live-updates switch.
 */
import { isRpcError } from './chain-data';

export const view = document.getElementById('view')!;
export const status = document.getElementById('status')!;
const problem = document.getElementById('problem')!;
const liveButton = document.getElementById('live')!;

export function showProblem(error: unknown): void {
  if (lostSince !== undefined) return;
  const text = isRpcError(error)
    ? `The node refused the request: ${error.message}`
    : `Cannot reach the node: ${error instanceof Error ? error.message : String(error)}`;
  if (problem.textContent !== text) problem.textContent = text;
  problem.hidden = false;
}

/** Set while the push connection to the node is lost: other problems wait behind it. */
let lostSince: Date | undefined;

/**
 * The node went away while the page listened to its push: the page says so (what it shows is the
 * chain as it was then) until the node is back.
 */
export function showNodeLost(since: Date): void {
  lostSince = since;
  const at = since.toISOString().slice(11, 19);
  problem.textContent =
    `Lost the connection to the node at ${at} UTC: it stopped or the network is down. ` +
    'The page shows the chain as it was then and resumes by itself when the node is back.';
  problem.hidden = false;
  status.textContent = 'Not connected to the node: retrying…';
}

/** The node is back: the banner goes and the shown view catches up. */
export function showNodeBack(): void {
  lostSince = undefined;
  clearProblem();
  status.textContent = 'Connected to the node again.';
}

export function clearProblem(): void {
  if (lostSince !== undefined) return;
  problem.hidden = true;
  problem.textContent = '';
}

let live = true;

/** Whether live updates are on (the user can pause them). */
export function isLive(): boolean {
  return live;
}

/** Follows the live-updates switch; `onResume` runs when the user turns updates back on. */
export function watchLiveSwitch(onResume: () => void): void {
  liveButton.addEventListener('click', () => {
    live = !live;
    liveButton.setAttribute('aria-pressed', String(live));
    status.textContent = live ? 'Live updates on.' : 'Live updates paused.';
    if (live) onResume();
  });
}

/**
 * Whether the node served this page to its operator (a loopback or authenticated request through no
 * proxy: apps/node/src/explorer/operator-request.ts). Only then does the page show key-store state.
 */
export const isOperatorPage =
  document.querySelector<HTMLMetaElement>('meta[name="chain-node-viewer"]')?.content === 'operator';
