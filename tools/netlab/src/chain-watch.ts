/**
 * Watching the lab's network settle: the nodes' tips (one chain, the same head) and, after a
 * partition heals, the relay's links across the cut, so that a heal's time is split into
 * reconnecting and syncing.
 */

import type { Lab } from './lab';
import type { LabNode } from './lab-node';
import { sleep } from './load';
import type { RelayLink } from './relay';
import type { BlockSummary } from './rpc';

async function tips(nodes: LabNode[]): Promise<BlockSummary[]> {
  return Promise.all(nodes.map((n) => n.tip()));
}

/** Waits until every node has the same tip hash; resolves with it, or undefined at the deadline. */
export async function converge(
  nodes: LabNode[],
  timeoutMs: number,
): Promise<BlockSummary | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await tips(nodes).catch(() => undefined);
    if (all?.every((t) => t.hash === all[0]!.hash)) return all[0];
    await sleep(250);
  }
  return undefined;
}

/**
 * One chain, every node within one block of the others: each node's block at the lowest of their
 * heights is the same, that height is at least `atLeast` (above the forks being judged), and no
 * node is more than one block ahead of it. With 30 nodes and a block every 500 ms an instant at
 * which all 30 tips are equal is rare even on a sound network (a block takes a few hundred ms to
 * reach them all, and the lab's 60 calls are not one instant): this is the figure judged; the
 * same tip everywhere is reported beside it.
 */
export async function oneChain(
  nodes: LabNode[],
  all: BlockSummary[],
  atLeast: number,
): Promise<boolean> {
  const low = Math.min(...all.map((t) => t.block));
  const high = Math.max(...all.map((t) => t.block));
  if (low < atLeast || high - low > 1) return false;
  const hashes = await Promise.all(
    nodes.map((n, i) =>
      all[i]!.block === low
        ? all[i]!.hash
        : n
            .call<BlockSummary>('getBlockInfo', { block: low }, 5000)
            .then((b) => b.hash)
            .catch(() => undefined),
    ),
  );
  return hashes.every((h) => h !== undefined && h === hashes[0]);
}

export interface ChainWatch {
  /** The heights the judged figures must pass: oneChain above `oneChainAtLeast`, the head at `headAtLeast`. */
  oneChainAtLeast: number;
  headAtLeast: number;
  timeoutMs: number;
  pollMs: number;
}

export interface ChainSettled {
  /** Unix ms at which the nodes were first one chain (oneChain), and first at the same head. */
  oneChainAt: number | undefined;
  sameHeadAt: number | undefined;
  head: BlockSummary | undefined;
}

/** Polls the nodes' tips until they all have the same head or the watch's time is up. */
export async function watchChain(nodes: LabNode[], watch: ChainWatch): Promise<ChainSettled> {
  const deadline = Date.now() + watch.timeoutMs;
  let oneChainAt: number | undefined;
  while (Date.now() < deadline) {
    const all = await tips(nodes).catch(() => undefined);
    const at = Date.now();
    if (all?.every((t) => t.hash === all[0]!.hash) && all[0]!.block >= watch.headAtLeast) {
      return { oneChainAt: oneChainAt ?? at, sameHeadAt: at, head: all[0] };
    }
    if (all !== undefined && oneChainAt === undefined) {
      if (await oneChain(nodes, all, watch.oneChainAtLeast)) oneChainAt = at;
    }
    await sleep(watch.pollMs);
  }
  return { oneChainAt, sameHeadAt: undefined, head: undefined };
}

/** The pause between two looks at the tips after a heal, and at the relay's links. */
const HEAL_POLL_MS = 200;
const LINKS_POLL_MS = 50;

export interface HealProgress {
  /** From the heal to the first link across the cut that the dialled node answered on. */
  firstCrossMs: number | undefined;
  /**
   * From the heal until every node that had a link across before the cut had had one again (each
   * node counted from its first: a link that came and went counts).
   */
  everyNodeAcrossMs: number | undefined;
  /** From the heal until the nodes were one chain (oneChain: within a block of each other). */
  oneChainMs: number | undefined;
  /** From the heal until every node had the same head, and that head. */
  sameHeadMs: number | undefined;
  head: BlockSummary | undefined;
  /** Links across open when the network was one chain again (or at the end of the watch). */
  crossLinks: number;
  /** Lab node numbers that had a link across before the cut and none during the watch. */
  neverAcross: number[];
}

/** The links of `links` between two of `groups`. */
function linksAcross(links: RelayLink[], groups: number[][]): RelayLink[] {
  const sideOf = new Map<number, number>();
  groups.forEach((group, g) => {
    for (const i of group) sideOf.set(i, g);
  });
  return links.filter((l) => sideOf.get(l.from) !== sideOf.get(l.to));
}

/** The nodes with at least one of `links` between two of `groups`. */
export function nodesAcross(links: RelayLink[], groups: number[][]): Set<number> {
  return new Set(linksAcross(links, groups).flatMap((l) => [l.from, l.to]));
}

/**
 * Watches the network after a heal: the relay's open links (reconnection: when the first link
 * across the cut came back, when every node of `expected` had one) and the nodes' tips (sync:
 * when they are one chain above `forkTop`, and at the same head).
 */
export async function watchHeal(
  lab: Lab,
  groups: number[][],
  expected: Set<number>,
  forkTop: number,
  healedAt: number,
  timeoutMs: number,
): Promise<HealProgress> {
  const everAcross = new Set<number>();
  let firstCrossMs: number | undefined;
  let everyNodeAcrossMs: number | undefined;
  let crossLinks = 0;
  let settled = false;
  const deadline = healedAt + timeoutMs;
  // Two loops: the relay's links (one IPC message) are looked at every LINKS_POLL_MS, apart from
  // the tips (two calls to each node, slow on a busy host), so that the reconnection's figures do
  // not wait on the nodes' RPC.
  const watchLinks = async () => {
    while (!settled && Date.now() < deadline) {
      const across = linksAcross(await lab.relay.links().catch(() => []), groups);
      const at = Date.now() - healedAt;
      for (const l of across) everAcross.add(l.from).add(l.to);
      crossLinks = across.length;
      if (across.length > 0) firstCrossMs ??= at;
      if ([...expected].every((i) => everAcross.has(i))) everyNodeAcrossMs ??= at;
      await sleep(LINKS_POLL_MS);
    }
  };
  const chain = watchChain(lab.nodes, {
    oneChainAtLeast: forkTop + 1,
    headAtLeast: 0,
    timeoutMs: deadline - Date.now(),
    pollMs: HEAL_POLL_MS,
  }).finally(() => {
    settled = true;
  });
  const [, { oneChainAt, sameHeadAt, head }] = await Promise.all([watchLinks(), chain]);
  const since = (t: number | undefined) => (t === undefined ? undefined : t - healedAt);
  return {
    firstCrossMs,
    everyNodeAcrossMs,
    oneChainMs: since(oneChainAt),
    sameHeadMs: since(sameHeadAt),
    head,
    crossLinks,
    neverAcross: [...expected].filter((i) => !everAcross.has(i)),
  };
}
