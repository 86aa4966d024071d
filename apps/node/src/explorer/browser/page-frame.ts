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
  const text = isRpcError(error)
    ? `The node refused the request: ${error.message}`
    : `Cannot reach the node: ${error instanceof Error ? error.message : String(error)}`;
  if (problem.textContent !== text) problem.textContent = text;
  problem.hidden = false;
}

export function clearProblem(): void {
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
