/** The home view: chain summary, activity chart, latest blocks, pending and latest operations (live). */
import {
  type BatchCall,
  type BlockInfo,
  batch,
  blockInfos,
  type OperationObject,
  type Outcome,
  resultOf,
  tokensOf,
} from '../chain-data';
import {
  blockHashLink,
  blockLink,
  coinAmount,
  operationsTable,
  walletLink,
  when,
} from '../chain-format';
import { facts, h, heading, notice, replace, section, table } from '../dom';
import { status, view } from '../page-frame';
import { type ActivityChart, activityChart, CHART_BLOCKS } from './activity-chart';
import { peersText, syncText, type ViewContext } from './view-context';

const LATEST_BLOCKS = 10;
const LATEST_OPERATIONS = 20;

export async function homeView(context: ViewContext): Promise<void> {
  const summary = h('div');
  const chartPart = h('div');
  const blocksPart = h('div');
  const pendingPart = h('div');
  const operationsPart = h('div');
  replace(
    view,
    heading('Latest blocks and operations'),
    section('Chain', 'chain-heading', summary),
    section('Activity', 'activity-heading', chartPart),
    section('Latest blocks', 'blocks-heading', blocksPart),
    section('Pending operations', 'pending-heading', pendingPart),
    section('Latest operations', 'operations-heading', operationsPart),
  );
  let shownHeight = -1;
  let shownPending: string | undefined;

  async function refresh(): Promise<void> {
    const [count, pending, sync, node] = await batch([
      { method: 'getBlockCount' },
      { method: 'getPendingOperation' },
      { method: 'blockSyncing' },
      { method: 'nodeStatus' },
    ]);
    const height = resultOf(count);
    const pendingOps = resultOf(pending);
    const pendingTokens = await tokensOf(pendingOps);
    if (context.stale()) return;
    replace(
      summary,
      facts([
        ['Blocks', String(height)],
        ['Pending operations', String(pendingOps.length)],
        ['Sync', syncText(sync)],
        ['Peers', peersText(node)],
      ]),
    );

    const pendingKey = pendingOps.map((op) => op.ophash).join();
    if (pendingKey !== shownPending) {
      shownPending = pendingKey;
      replace(
        pendingPart,
        pendingOps.length === 0
          ? notice('No operations are waiting for a block.')
          : operationsTable('Pending operations', pendingOps, { tokens: pendingTokens }),
      );
    }
    if (height === shownHeight) return;
    const { blocks, operations } = await latestBlocks(height);
    const shownOps = operations.slice(0, LATEST_OPERATIONS);
    const tokens = await tokensOf(shownOps);
    if (context.stale()) return;
    shownHeight = height;
    replace(blocksPart, blocksTable(blocks));
    replace(
      operationsPart,
      operations.length === 0
        ? notice(`No operations in the latest ${blocks.length} blocks.`)
        : operationsTable('Latest operations', shownOps, { tokens }),
    );
    status.textContent = `Block ${height - 1} is the latest.`;
  }

  // Blocks that come while the chart loads its history are kept for it (it ignores repeats).
  let chart: ActivityChart | undefined;
  const early: BlockInfo[] = [];
  context.onNewBlocks((blocks) => {
    if (chart === undefined) early.push(...blocks);
    else chart.add(blocks);
  });
  await refresh();
  context.onChainChange(refresh);
  const history = await blockInfos(shownHeight - CHART_BLOCKS, shownHeight - 1);
  if (context.stale()) return;
  chart = activityChart([...history, ...early]);
  replace(chartPart, chart.element);
  chart.draw();
  context.onLeave(chart.destroy);
}

/** The newest blocks below `height` and their operations, newest first, in one request. */
async function latestBlocks(
  height: number,
): Promise<{ blocks: BlockInfo[]; operations: OperationObject[] }> {
  const calls: BatchCall[] = [];
  for (let block = height - 1; block >= Math.max(0, height - LATEST_BLOCKS); block--) {
    calls.push({ method: 'getBlockInfo', params: { block } });
    calls.push({ method: 'getBlockOperations', params: { block } });
  }
  const outcomes = await batch(calls);
  const blocks: BlockInfo[] = [];
  const operations: OperationObject[] = [];
  for (let i = 0; i < outcomes.length; i += 2) {
    blocks.push(resultOf(outcomes[i] as Outcome<BlockInfo>));
    operations.push(
      ...resultOf(outcomes[i + 1] as Outcome<OperationObject[]>)
        .slice()
        .reverse(),
    );
  }
  return { blocks, operations };
}

function blocksTable(blocks: BlockInfo[]): HTMLElement {
  return table(
    'Latest blocks',
    ['Block', 'Age', 'Operations', 'Fees', 'Producer', 'Hash'],
    blocks.map((block) => [
      blockLink(block.block),
      when(block.timestamp),
      String(block.operations),
      coinAmount(block.trx_fee),
      walletLink(block.hmr),
      blockHashLink(block.hash, block.block),
    ]),
  );
}
