/** One block (by number or hash): header, neighbours, operations. */
import { batch, failed, findBlockByHash, resultOf, tokensOf } from '../chain-data';
import {
  blockReward,
  coinAmount,
  label,
  operationsTable,
  payloadView,
  producerLinks,
  utcText,
  when,
} from '../chain-format';
import { type Child, facts, h, heading, link, mono, notice, replace, section } from '../dom';
import { view } from '../page-frame';
import type { ViewContext } from './view-context';

/** Shown together in the Reward row. */
const REWARD_FIELDS = new Set(['reward', 'subsidy']);

export async function blockView(context: ViewContext, arg: string): Promise<void> {
  let number = /^\d+$/.test(arg) ? Number(arg) : Number.NaN;
  if (/^(0x)?[0-9a-f]{64}$/i.test(arg)) {
    const found = await findBlockByHash(arg);
    if (context.stale()) return;
    if (found === undefined) {
      replace(view, heading('Block'), notice(`No block of this node has the hash ${arg}.`));
      return;
    }
    number = found;
  }
  if (!Number.isSafeInteger(number)) {
    replace(view, heading('Block'), notice(`"${arg}" is not a block number or hash.`));
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
  const tokens = await tokensOf(ops);
  if (context.stale()) return;
  const pager = h(
    'nav',
    { 'aria-label': 'Blocks', class: 'pager' },
    number > 0 ? link(`#/block/${number - 1}`, '← Previous block') : '',
    number + 1 < height ? link(`#/block/${number + 1}`, 'Next block →') : '',
  );
  const fields: Array<[Child, Child]> = Object.entries(info)
    .filter(([key]) => !REWARD_FIELDS.has(key))
    .map(([key, value]) => [label(key), blockField(number, key, value)]);
  fields.push([label('reward'), blockReward(info)]);
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
        : operationsTable(`Operations of block ${number}`, ops, { tokens }),
    ),
  );
}

function blockField(number: number, key: string, value: unknown): Child {
  const text = String(value);
  if (key === 'timestamp') return h('span', null, utcText(text), ' (', when(text), ')');
  if (key === 'trx_fee') return coinAmount(text);
  if (key === 'hmr') return producerLinks(text);
  if (key === 'payload') return payloadView(text);
  if (key === 'one_hash' && number > 0) {
    return link(`#/block/${number - 1}`, mono(text), `previous block ${number - 1} hash ${text}`);
  }
  if (key === 'operations' || key === 'nopsp' || key === 'niopsp') return text;
  return typeof value === 'string' && value.length > 20 ? mono(value) : text;
}
