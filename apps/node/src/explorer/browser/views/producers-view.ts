/**
 * Block producers: who signs the blocks, since when, and how many of the scanned blocks each signed.
 *
 * No method lists the producer set. The page reads it from the chain: each block names its producer
 * (`hmr`); block 0 names the first genesis producer; a TOP node's mine wallet joins the producers with
 * its blockchainStart operation (optype 19, "... starts mining: mine wallet CH..."). A producer seen
 * signing with no blockchainStart since block 0 is a genesis producer.
 */
import {
  type BlockInfo,
  manyBlockInfos,
  manyOperations,
  type OperationObject,
  rpc,
} from '../chain-data';
import { blockLink, nodeCodeOf, producerLinks, walletLink, when } from '../chain-format';
import { type Child, h, heading, link, notice, replace, section, table } from '../dom';
import { showProblem, view } from '../page-frame';
import type { ViewContext } from './view-context';

/** Blocks read per step of the producers page. */
const PRODUCER_SCAN_BLOCKS = 1000;
const START_OPTYPE = 19;

export interface Producer {
  wallet: string;
  /** Blocks it signed among those scanned. */
  signed: number;
  /** The newest block it signed among those scanned. */
  last?: BlockInfo;
  /** Its blockchainStart operation, when found. */
  start?: OperationObject;
  /** Named by block 0, or seen signing with no blockchainStart since block 0. */
  genesis: boolean;
}

export interface ProducerScan {
  producers: Producer[];
  /** The blocks scanned: `from` to `to` inclusive. */
  from: number;
  to: number;
}

/** The mine wallet a blockchainStart operation puts into the producer set. */
function startedWallet(op: OperationObject): string | undefined {
  if (op.optype !== START_OPTYPE) return undefined;
  return / starts mining: mine wallet ([A-Za-z0-9]{2}[0-9a-f]{46})/.exec(op.optxt)?.[1];
}

/** The producers of blocks `from` to `to` (and block 0's), most blocks signed first. */
export async function loadProducers(from: number, to: number): Promise<ProducerScan> {
  const [infos, operations, genesisBlock] = await Promise.all([
    manyBlockInfos(from, to),
    manyOperations(from, to),
    from === 0 ? Promise.resolve(undefined) : rpc('getBlockInfo', { block: 0 }),
  ]);
  const byWallet = new Map<string, Producer>();
  const producer = (wallet: string) => {
    let known = byWallet.get(wallet);
    if (known === undefined) {
      known = { wallet, signed: 0, genesis: false };
      byWallet.set(wallet, known);
    }
    return known;
  };
  const first = genesisBlock ?? infos[0];
  if (first !== undefined) producer(first.hmr).genesis = true;
  // Block 0 is the genesis block, nobody's work: its producer field only names a genesis producer.
  for (const info of infos) {
    if (info.block === 0) continue;
    const entry = producer(info.hmr);
    entry.signed++;
    if (entry.last === undefined || info.block > entry.last.block) entry.last = info;
  }
  for (const op of operations) {
    const wallet = startedWallet(op);
    if (wallet !== undefined && (producer(wallet).start?.block ?? -1) < op.block) {
      producer(wallet).start = op;
    }
  }
  if (from === 0) {
    for (const entry of byWallet.values()) if (entry.start === undefined) entry.genesis = true;
  }
  const producers = [...byWallet.values()].sort(
    (a, b) => b.signed - a.signed || a.wallet.localeCompare(b.wallet),
  );
  return { producers, from, to };
}

/** Since when a producer produces, in words (and links). */
function sinceText(producer: Producer, scan: ProducerScan): Child {
  if (producer.start !== undefined) {
    const code = nodeCodeOf(producer.start);
    return h(
      'span',
      null,
      'block ',
      blockLink(producer.start.block),
      ' (',
      when(producer.start.time),
      '), blockchainStart of TOP node ',
      walletLink(producer.start.signer_account),
      code === undefined ? '' : ` (node code ${code})`,
    );
  }
  if (producer.genesis) return 'genesis (block 0)';
  return `before block ${scan.from}`;
}

/** The producers as a table. */
export function producersTable(caption: string, scan: ProducerScan): HTMLElement {
  const scanned = Math.max(0, scan.to - Math.max(1, scan.from) + 1);
  return table(
    caption,
    ['Producer', 'Role', 'Producing since', 'Blocks signed', 'Last signed'],
    scan.producers.map((producer) => [
      producerLinks(producer.wallet),
      producer.genesis ? 'genesis producer' : 'TOP node mine wallet',
      sinceText(producer, scan),
      scanned === 0
        ? '0'
        : `${producer.signed} (${((producer.signed * 100) / scanned).toFixed(1)}%)`,
      producer.last === undefined
        ? 'none in these blocks'
        : h('span', null, blockLink(producer.last.block), ' · ', when(producer.last.timestamp)),
    ]),
  );
}

export async function producersView(context: ViewContext): Promise<void> {
  const height = await rpc('getBlockCount');
  if (context.stale()) return;
  const listPart = h('div');
  const more = h(
    'button',
    { type: 'button', hidden: true },
    `Look ${PRODUCER_SCAN_BLOCKS} blocks further back`,
  );
  replace(
    view,
    heading('Block producers'),
    notice(
      'Producers take turns signing blocks: the genesis producers from the start, and the mine ' +
        'wallet of each TOP node from its blockchainStart until the node leaves.',
    ),
    section('Producers', 'producers-heading', listPart, more),
  );
  let from = Math.max(0, height - PRODUCER_SCAN_BLOCKS);

  async function show(): Promise<void> {
    const scan = await loadProducers(from, height - 1);
    if (context.stale()) return;
    more.hidden = from === 0;
    const range = `blocks ${Math.max(1, from)} to ${height - 1}`;
    replace(
      listPart,
      scan.producers.length === 0
        ? notice('No block has been produced yet.')
        : producersTable(`Producers of ${range}`, scan),
      notice(`Blocks signed: of ${range}, as each block names its producer.`),
      link('#/participation', 'TOP nodes and their trees'),
    );
  }
  more.addEventListener('click', () => {
    from = Math.max(0, from - PRODUCER_SCAN_BLOCKS);
    show().catch(showProblem);
  });
  await show();
}
