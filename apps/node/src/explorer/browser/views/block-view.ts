/** One block: header, neighbours, operations. */
import { batch, failed, resultOf } from '../chain-data';
import { coins, operationsTable, walletLink, when } from '../chain-format';
import { type Child, facts, h, heading, link, mono, notice, replace, section } from '../dom';
import { view } from '../page-frame';
import type { ViewContext } from './view-context';

export async function blockView(context: ViewContext, arg: string): Promise<void> {
  const number = /^\d+$/.test(arg) ? Number(arg) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    replace(view, heading('Block'), notice(`"${arg}" is not a block number.`));
    return;
  }
  const [info, operations, count] = await batch([
    { method: 'getBlockInfo', params: { block: number } },
    { method: 'getBlockOperations', params: { block: number } },
    { method: 'getBlockCount' },
  ]);
  if (context.stale()) return;
  if (failed(info)) {
    replace(view, heading(`Block ${number}`), notice(info.message));
    return;
  }
  const ops = resultOf(operations);
  const height = resultOf(count);
  const pager = h(
    'nav',
    { 'aria-label': 'Blocks', class: 'pager' },
    number > 0 ? link(`#/block/${number - 1}`, '← Previous block') : '',
    number + 1 < height ? link(`#/block/${number + 1}`, 'Next block →') : '',
  );
  const fields: Array<[string, Child]> = Object.entries(info).map(([key, value]) =>
    blockField(number, key, value),
  );
  replace(
    view,
    heading(`Block ${number}`),
    pager,
    section('Header', 'header-heading', facts(fields)),
    section(
      'Operations',
      'block-ops-heading',
      ops.length === 0
        ? notice('This block has no operations.')
        : operationsTable(`Operations of block ${number}`, ops),
    ),
  );
}

function blockField(number: number, key: string, value: unknown): [string, Child] {
  if (key === 'timestamp')
    return [key, h('span', null, String(value), ' (', when(String(value)), ')')];
  if (key === 'trx_fee') return [key, `${value} (${coins(String(value))})`];
  if (key === 'hmr') return [key, walletLink(String(value))];
  if (key === 'one_hash' && number > 0)
    return [
      key,
      link(`#/block/${number - 1}`, mono(String(value)), `previous block ${number - 1}`),
    ];
  return [key, typeof value === 'string' && value.length > 20 ? mono(value) : String(value)];
}
