/**
 * The blocks one producer signed (`#/produced/ADDR`), newest first. No method lists a producer's
 * blocks: the page reads block headers backwards, PRODUCED_SCAN_BLOCKS per step (one step on
 * opening, one more per click, so a click costs a bounded number of requests), and adds the
 * producer's new blocks as they arrive.
 */
import { type BlockInfo, manyBlockInfos, rpc } from '../chain-data';
import {
  blockHashLink,
  blockLink,
  blockReward,
  coinAmount,
  walletLink,
  when,
} from '../chain-format';
import { h, heading, link, mono, notice, replace, section, table } from '../dom';
import { showProblem, view } from '../page-frame';
import type { ViewContext } from './view-context';

/** Block headers read per step (two requests of 500 calls). */
export const PRODUCED_SCAN_BLOCKS = 1000;

export async function producedView(context: ViewContext, wallet: string): Promise<void> {
  const height = await rpc('getBlockCount');
  if (context.stale()) return;
  const listPart = h('div');
  const more = h(
    'button',
    { type: 'button', hidden: true },
    `Look ${PRODUCED_SCAN_BLOCKS} blocks further back`,
  );
  replace(
    view,
    heading('Blocks produced', ' by ', mono(wallet)),
    h('p', null, 'Producer ', walletLink(wallet), '.'),
    notice(
      `No method lists a producer's blocks: the page reads block headers from the newest back, ` +
        `${PRODUCED_SCAN_BLOCKS} blocks each time you ask, and adds this producer's new blocks as ` +
        'they come.',
    ),
    section('Blocks', 'produced-heading', listPart, more),
    link('#/producers', 'All producers'),
  );
  const found: BlockInfo[] = [];
  /** Blocks `scannedFrom` to `scannedTo` (inclusive) have been read. */
  let scannedFrom = height;
  let scannedTo = height - 1;

  function show(): void {
    more.hidden = scannedFrom <= 0;
    // Block 0 is the genesis block, nobody's work (as on the producers page).
    const range = `blocks ${Math.max(1, scannedFrom)} to ${scannedTo}`;
    replace(
      listPart,
      found.length === 0
        ? notice(`This wallet produced none of ${range}.`)
        : producedTable(`Blocks produced in ${range}`, found),
      notice(`${found.length} of ${range} produced by this wallet.`),
    );
  }

  async function scanBack(): Promise<void> {
    const to = scannedFrom - 1;
    const from = Math.max(0, scannedFrom - PRODUCED_SCAN_BLOCKS);
    const infos = to < from ? [] : await manyBlockInfos(from, to);
    if (context.stale()) return;
    // A new block may have come while these were read (and may be among them): listed once, as
    // the feed gave it (after a reorganisation, the feed's is the one on the chain).
    const listed = new Set(found.map((info) => info.block));
    const older = infos.filter((info) => isProducedBy(info, wallet) && !listed.has(info.block));
    found.push(...older.reverse());
    scannedFrom = from;
    show();
  }

  context.onNewBlocks((blocks) => {
    // After a reorganisation the new branch's blocks come again: the list is cut back to them.
    const first = blocks[0];
    if (first === undefined) return;
    const kept = found.filter((info) => info.block < first.block);
    const added = blocks.filter((info) => isProducedBy(info, wallet)).reverse();
    found.splice(0, found.length, ...added, ...kept);
    scannedTo = blocks[blocks.length - 1]!.block;
    show();
  });
  more.addEventListener('click', () => {
    scanBack().catch(showProblem);
  });
  await scanBack();
}

function isProducedBy(info: BlockInfo, wallet: string): boolean {
  return info.block > 0 && info.hmr === wallet;
}

function producedTable(caption: string, blocks: BlockInfo[]): HTMLElement {
  return table(
    caption,
    ['Block', 'Age', 'Operations', 'Fees', 'Reward', 'Hash'],
    blocks.map((block) => [
      blockLink(block.block),
      when(block.timestamp),
      String(block.operations),
      coinAmount(block.trx_fee),
      blockReward(block),
      blockHashLink(block.hash, block.block),
    ]),
  );
}
