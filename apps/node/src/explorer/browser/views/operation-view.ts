/** One operation by ophash: details, senders, receivers; followed live until it is in a block. */
import { type OperationObject, rpc, tokensOf } from '../chain-data';
import {
  amountOf,
  blockLink,
  coinAmount,
  confirmationsOf,
  label,
  operationKind,
  payloadView,
  type TokenBook,
  tokenLink,
  tokenOf,
  utcText,
  walletLink,
  when,
} from '../chain-format';
import { type Child, facts, h, heading, mono, notice, replace, section, table } from '../dom';
import { status, view } from '../page-frame';
import type { ViewContext } from './view-context';

/** Fields the details list shows in its own way; every other field follows as it is. */
const SHOWN_FIELDS = new Set([
  'ophash',
  'block',
  'maturation',
  'optype',
  'subtype',
  'optxt',
  'signer_account',
  'n_operation',
  'amount',
  'oprice',
  'ioprice',
  'time',
  'opblock',
  'token',
  'senders',
  'receivers',
]);

export async function operationView(context: ViewContext, arg: string): Promise<void> {
  const ophash = arg.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(ophash)) {
    replace(view, heading('Operation'), notice(`"${arg}" is not an ophash (64 hex digits).`));
    return;
  }
  let shownBlock = -1;
  async function refresh(): Promise<void> {
    const found = await rpc('findOperation', { ophash });
    if (context.stale()) return;
    const op = found[0];
    if (op === undefined) {
      replace(
        view,
        heading('Operation'),
        notice(`No operation with ophash ${ophash} is known to this node.`),
      );
      return;
    }
    if (op.block === shownBlock) return;
    const tokens = await tokensOf([op]);
    if (context.stale()) return;
    shownBlock = op.block;
    replace(
      view,
      heading('Operation'),
      section('Details', 'op-heading', facts(detailFields(op, tokens))),
      section('Senders', 'senders-heading', sendersPart(op)),
      section('Receivers', 'receivers-heading', receiversPart(op)),
    );
    status.textContent = pending(op)
      ? 'Operation is pending.'
      : `Operation is in block ${op.block}.`;
  }
  await refresh();
  context.onChainChange(async () => {
    if (shownBlock <= 0) await refresh();
  });
}

/** A pending operation says block 0 (and maturation null): the page says "pending". */
function pending(op: OperationObject): boolean {
  return op.block <= 0 || op.maturation === null;
}

function detailFields(op: OperationObject, tokens: TokenBook): Array<[Child, Child]> {
  const token = tokenOf(op);
  const amount = amountOf(op, tokens);
  const fields: Array<[Child, Child]> = [
    [label('ophash', 'operation'), mono(op.ophash)],
    [
      h('span', { title: 'spec names: block, maturation', 'data-spec': 'block' }, 'Status'),
      pending(op)
        ? 'pending'
        : h(
            'span',
            null,
            'in block ',
            blockLink(op.block),
            ' (',
            confirmationsOf(op),
            ' confirmations)',
          ),
    ],
    [
      h('span', { title: 'spec names: optype, subtype', 'data-spec': 'optype' }, 'Type'),
      h(
        'span',
        null,
        operationKind(op, tokens),
        ` (optype ${op.optype}${op.subtype === undefined ? '' : `, subtype ${op.subtype}`})`,
      ),
    ],
  ];
  if (token !== undefined) {
    const meta = tokens.get(token);
    fields.push([
      label('token', 'operation'),
      h(
        'span',
        null,
        tokenLink(token, tokens),
        meta === undefined ? '' : ` (${meta.name}) `,
        mono(token),
      ),
    ]);
  }
  fields.push(
    [label('optxt', 'operation'), op.optxt],
    [label('signer_account', 'operation'), walletLink(op.signer_account)],
    [label('n_operation', 'operation'), String(op.n_operation)],
  );
  if (amount !== '') fields.push([label('amount', 'operation'), amount]);
  fields.push(
    [label('oprice', 'operation'), coinAmount(op.oprice)],
    [label('ioprice', 'operation'), coinAmount(op.ioprice)],
    [label('time', 'operation'), h('span', null, utcText(op.time), ' (', when(op.time), ')')],
    [
      label('opblock', 'operation'),
      pending(op) ? `${op.opblock} in the pending pool` : String(op.opblock),
    ],
  );
  for (const [key, value] of Object.entries(op)) {
    if (SHOWN_FIELDS.has(key)) continue;
    fields.push([
      label(key, 'operation'),
      typeof value === 'object' ? JSON.stringify(value) : String(value),
    ]);
  }
  return fields;
}

function sendersPart(op: OperationObject): HTMLElement {
  const senders = op.senders ?? [];
  if (senders.length === 0) return notice('No senders.');
  return table(
    'Senders',
    ['Wallet', 'Payload', 'Payload type', ...amountHeader(senders)],
    senders.map((s) => [
      walletLink(s.account),
      payloadView(s.payload),
      String(s.payload_type),
      ...amountCell(senders, s.amount),
    ]),
  );
}

function receiversPart(op: OperationObject): HTMLElement {
  const receivers = op.receivers ?? [];
  if (receivers.length === 0) return notice('No receivers.');
  return table(
    'Receivers',
    ['Wallet', ...amountHeader(receivers)],
    receivers.map((r) => [walletLink(r.account), ...amountCell(receivers, r.amount)]),
  );
}

/** Senders and receivers carry their own amount only in H/W-check results. */
function amountHeader(parts: Array<{ amount?: string }>): string[] {
  return parts.some((part) => part.amount !== undefined) ? ['Amount'] : [];
}

function amountCell(parts: Array<{ amount?: string }>, amount: string | undefined): Child[] {
  return parts.some((part) => part.amount !== undefined) ? [amount ?? ''] : [];
}
