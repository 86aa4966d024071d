/**
 * The explorer page's script. It runs in the browser, not in the node: `page.ts` serializes this
 * function with Function.prototype.toString into the page, so the code keeps TypeScript's checks
 * and Biome's lint without a browser build step. Hence the one rule of this file: `explorerApp`
 * must not use anything from outside its own body (no imports, no module-level names).
 *
 * Everything the page shows comes from the node's JSON-RPC (POST to the page's own origin), and
 * every value from the chain reaches the DOM as text (textContent), never as markup.
 */
export function explorerApp(): void {
  const POLL_MS = 2000;
  const LATEST_BLOCKS = 10;
  const LATEST_OPERATIONS = 20;
  const WALLET_SCAN_BLOCKS = 100;
  const COIN_DECIMALS = 18;
  const TRANSFER = 2;
  const NOT_AVAILABLE = -32001;
  const OPTYPE_NAMES: Record<number, string> = {
    2: 'Transfer',
    5: 'Wallet activation',
    6: 'Token creation',
    7: 'Token operation',
    8: 'Participation: TOP node',
    9: 'Participation: TOP H/W check',
    14: 'Participation: MIDDLE request',
    15: 'Participation: MIDDLE approval',
    16: 'Participation: MIDDLE H/W check',
    17: 'Participation: MIDDLE H/W approval',
    18: 'Participation: BOTTOM request',
    19: 'Participation: BOTTOM approval, start or cancel',
  };

  interface RpcErrorObject {
    code: number;
    message: string;
    data?: { reason?: string; param?: string };
  }
  interface Operation {
    block: number;
    time: number;
    opblock: number;
    maturation: number | null;
    optype: number;
    oprice: string;
    signer_account: string;
    n_operation: number;
    amount?: string;
    senders?: Array<{ account: string; payload: string; payload_type: number; amount?: string }>;
    receivers?: Array<{ account: string; amount?: string }>;
    optxt: string;
    ophash: string;
    [key: string]: unknown;
  }
  interface Block {
    block: number;
    timestamp: string;
    hmr: string;
    hash: string;
    one_hash: string;
    trx_fee: string;
    operations: number;
    [key: string]: unknown;
  }

  /** The node refused a call (a JSON-RPC error reply). */
  class RpcFailure extends Error {
    readonly code: number;
    readonly reason: string;
    constructor(error: RpcErrorObject) {
      super(error.message);
      this.code = error.code;
      this.reason = error.data?.reason ?? '';
    }
  }

  type Outcome = { ok: true; value: unknown } | { ok: false; error: RpcFailure };
  type Call = [method: string, params?: Record<string, unknown>];

  // ---- JSON-RPC -------------------------------------------------------------------------------

  let nextId = 1;

  /** One HTTP request with every call as a JSON-RPC batch; an outcome per call, in order. */
  async function batch(calls: Call[]): Promise<Outcome[]> {
    const requests = calls.map(([method, params]) => ({
      jsonrpc: '2.0',
      method,
      params: params ?? {},
      id: nextId++,
    }));
    const response = await fetch(location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(requests.length === 1 ? requests[0] : requests),
      cache: 'no-store',
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the node answered HTTP ${response.status} without a JSON-RPC reply`);
    }
    if (!Array.isArray(body)) {
      const single = body as { error?: RpcErrorObject; result?: unknown };
      // A refusal of the whole request (busy, unauthorized, ...) answers every call.
      if (requests.length > 1 || single.error !== undefined) {
        if (single.error !== undefined) {
          const error = new RpcFailure(single.error);
          if (requests.length > 1) return requests.map(() => ({ ok: false, error }));
          return [{ ok: false, error }];
        }
      }
      return [{ ok: true, value: single.result }];
    }
    const replies = body as Array<{ id: unknown; error?: RpcErrorObject; result?: unknown }>;
    const byId = new Map(replies.map((reply) => [String(reply.id), reply]));
    return requests.map((request, index) => {
      // Replies come in request order; the id is checked first in case they ever do not.
      const reply = byId.get(String(request.id)) ?? replies[index];
      if (reply === undefined) {
        return { ok: false, error: new RpcFailure({ code: -32603, message: 'no reply' }) };
      }
      if (reply.error !== undefined) return { ok: false, error: new RpcFailure(reply.error) };
      return { ok: true, value: reply.result };
    });
  }

  async function rpc<T>(method: string, params?: Record<string, unknown>): Promise<T> {
    const [outcome] = await batch([[method, params]]);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.value as T;
  }

  function resultOf<T>(outcome: Outcome): T {
    if (!outcome.ok) throw outcome.error;
    return outcome.value as T;
  }

  function isNotAvailable(outcome: Outcome): boolean {
    return !outcome.ok && outcome.error.code === NOT_AVAILABLE;
  }

  // ---- DOM ------------------------------------------------------------------------------------

  type Child = Node | string | number | null | undefined | false;

  function h<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attributes?: Record<string, string | number | boolean | undefined> | null,
    ...children: Child[]
  ): HTMLElementTagNameMap[K] {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value === undefined || value === false) continue;
      if (name === 'class') element.className = String(value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      element.append(typeof child === 'object' ? child : String(child));
    }
    return element;
  }

  /** A link whose focus survives a live re-render (found again by its key). */
  function link(href: string, text: Child, label?: string): HTMLAnchorElement {
    return h('a', { href, 'data-key': href, 'aria-label': label }, text);
  }

  function mono(text: string): HTMLElement {
    return h('span', { class: 'mono' }, text);
  }

  /** Swaps a container's content; keyboard focus inside it moves to the same link in the new one. */
  function replace(container: Element, ...children: Child[]): void {
    const focused = document.activeElement;
    const key =
      focused instanceof HTMLElement && container.contains(focused)
        ? focused.getAttribute('data-key')
        : null;
    container.replaceChildren();
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      container.append(typeof child === 'object' ? child : String(child));
    }
    if (key !== null) {
      container.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus();
    }
  }

  function section(title: string, id: string, ...children: Child[]): HTMLElement {
    return h('section', { 'aria-labelledby': id }, h('h3', { id }, title), ...children);
  }

  function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
    const head = h('tr', null, ...headers.map((text) => h('th', { scope: 'col' }, text)));
    const body = rows.map((cells) => h('tr', null, ...cells.map((cell) => h('td', null, cell))));
    // A scrollable region must be reachable by keyboard to scroll it.
    return h(
      'div',
      { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: 0 },
      h(
        'table',
        null,
        h('caption', null, caption),
        h('thead', null, head),
        h('tbody', null, ...body),
      ),
    );
  }

  function facts(entries: Array<[string, Child]>): HTMLElement {
    return h(
      'dl',
      { class: 'facts' },
      ...entries.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
    );
  }

  function notice(text: string): HTMLElement {
    return h('p', { class: 'notice' }, text);
  }

  // ---- Formatting -----------------------------------------------------------------------------

  /** Base units as a decimal of `decimals` places, without trailing zeros. */
  function units(base: string | undefined, decimals: number): string {
    if (base === undefined || !/^\d+$/.test(base)) return base ?? '';
    const digits = BigInt(base)
      .toString()
      .padStart(decimals + 1, '0');
    const whole = digits.slice(0, digits.length - decimals);
    const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
    return fraction === '' ? whole : `${whole}.${fraction}`;
  }

  function coins(base: string | undefined): string {
    return `${units(base, COIN_DECIMALS)} coins`;
  }

  function when(seconds: number | string): HTMLElement {
    const date = new Date(Number(seconds) * 1000);
    if (Number.isNaN(date.getTime())) return h('span', null, String(seconds));
    const iso = date.toISOString();
    return h('time', { datetime: iso }, `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
  }

  function short(hash: string): string {
    return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
  }

  function optypeName(optype: number): string {
    return OPTYPE_NAMES[optype] ?? `Type ${optype}`;
  }

  function amountOf(op: Operation): string {
    if (op.amount === undefined) return '';
    return op.optype === TRANSFER ? coins(op.amount) : `${op.amount} base units`;
  }

  function walletLink(address: string | undefined): Child {
    if (!address) return '';
    return /^[A-Za-z0-9]{2}[0-9a-f]{46}$/i.test(address)
      ? link(`#/wallet/${address}`, mono(short(address)), `wallet ${address}`)
      : mono(address);
  }

  function opLink(op: Operation): Child {
    // The ophash starts with block, account and counter; its digest (the last 40 digits) is what
    // tells operations apart at a glance.
    return link(`#/op/${op.ophash}`, mono(`${op.ophash.slice(24, 36)}…`), `operation ${op.ophash}`);
  }

  function blockLink(block: number): Child {
    return link(`#/block/${block}`, String(block));
  }

  function operationsTable(caption: string, operations: Operation[]): HTMLElement {
    return table(
      caption,
      ['Operation', 'Block', 'Type', 'From', 'To', 'Amount'],
      operations.map((op) => [
        opLink(op),
        op.block > 0 ? blockLink(op.block) : 'pending',
        optypeName(op.optype),
        walletLink(op.signer_account),
        h(
          'span',
          null,
          ...(op.receivers ?? []).map((r, i) =>
            h('span', null, i > 0 ? ', ' : '', walletLink(r.account)),
          ),
        ),
        amountOf(op),
      ]),
    );
  }

  // ---- Page frame: status, problems, live updates ---------------------------------------------

  const view = document.getElementById('view')!;
  const status = document.getElementById('status')!;
  const problem = document.getElementById('problem')!;
  const liveButton = document.getElementById('live')!;
  const searchForm = document.getElementById('search') as HTMLFormElement;
  const searchInput = document.getElementById('search-input') as HTMLInputElement;
  const searchError = document.getElementById('search-error')!;

  function showProblem(error: unknown): void {
    const text =
      error instanceof RpcFailure
        ? `The node refused the request: ${error.message}`
        : `Cannot reach the node: ${error instanceof Error ? error.message : String(error)}`;
    if (problem.textContent !== text) problem.textContent = text;
    problem.hidden = false;
  }

  function clearProblem(): void {
    problem.hidden = true;
    problem.textContent = '';
  }

  let live = true;
  liveButton.addEventListener('click', () => {
    live = !live;
    liveButton.setAttribute('aria-pressed', String(live));
    status.textContent = live ? 'Live updates on.' : 'Live updates paused.';
  });

  // ---- Views ----------------------------------------------------------------------------------

  interface ViewContext {
    /** True once the user has gone to another view: stop touching the DOM. */
    stale(): boolean;
    /** Called every POLL_MS while this view is shown and live updates are on. */
    onPoll(refresh: () => Promise<void>): void;
  }

  function heading(title: string, ...extra: Child[]): HTMLElement {
    document.title = `${title} · chain-node explorer`;
    return h('h2', { tabindex: -1 }, title, ...extra);
  }

  async function homeView(context: ViewContext): Promise<void> {
    const summary = h('div');
    const blocksPart = h('div');
    const pendingPart = h('div');
    const operationsPart = h('div');
    replace(
      view,
      heading('Latest blocks and operations'),
      section('Chain', 'chain-heading', summary),
      section('Latest blocks', 'blocks-heading', blocksPart),
      section('Pending operations', 'pending-heading', pendingPart),
      section('Latest operations', 'operations-heading', operationsPart),
    );
    let shownHeight = -1;
    let shownPending: string | undefined;

    async function refresh(): Promise<void> {
      const [count, pending, sync, node] = await batch([
        ['getBlockCount'],
        ['getPendingOperation'],
        ['blockSyncing'],
        ['nodeStatus'],
      ]);
      const height = resultOf<number>(count!);
      const pendingOps = resultOf<Operation[]>(pending!);
      if (context.stale()) return;
      replace(
        summary,
        facts([
          ['Blocks', String(height)],
          ['Pending operations', String(pendingOps.length)],
          ['Sync', syncText(sync!)],
          ['Peers', peersText(node!)],
        ]),
      );

      const pendingKey = pendingOps.map((op) => op.ophash).join();
      if (pendingKey !== shownPending) {
        shownPending = pendingKey;
        replace(
          pendingPart,
          pendingOps.length === 0
            ? notice('No operations are waiting for a block.')
            : operationsTable('Pending operations', pendingOps),
        );
      }
      if (height === shownHeight) return;
      const calls: Call[] = [];
      for (let block = height - 1; block >= Math.max(0, height - LATEST_BLOCKS); block--) {
        calls.push(['getBlockInfo', { block }], ['getBlockOperations', { block }]);
      }
      const outcomes = await batch(calls);
      if (context.stale()) return;
      const blocks: Block[] = [];
      const operations: Operation[] = [];
      for (let i = 0; i < outcomes.length; i += 2) {
        blocks.push(resultOf<Block>(outcomes[i]!));
        operations.push(
          ...resultOf<Operation[]>(outcomes[i + 1]!)
            .slice()
            .reverse(),
        );
      }
      shownHeight = height;
      replace(
        blocksPart,
        table(
          'Latest blocks',
          ['Block', 'Time', 'Operations', 'Fees', 'Producer', 'Hash'],
          blocks.map((block) => [
            blockLink(block.block),
            when(block.timestamp),
            String(block.operations),
            coins(block.trx_fee),
            walletLink(block.hmr),
            mono(short(block.hash)),
          ]),
        ),
      );
      replace(
        operationsPart,
        operations.length === 0
          ? notice(`No operations in the latest ${blocks.length} blocks.`)
          : operationsTable('Latest operations', operations.slice(0, LATEST_OPERATIONS)),
      );
      status.textContent = `Block ${height - 1} is the latest.`;
    }

    await refresh();
    context.onPoll(refresh);
  }

  function syncText(outcome: Outcome): string {
    if (isNotAvailable(outcome)) return 'not available on this node yet';
    const sync = resultOf<{ startingBlock: number; currentBlock: number; highestBlock: number }>(
      outcome,
    );
    if (sync.currentBlock >= sync.highestBlock) return `in sync at block ${sync.currentBlock}`;
    return `syncing: block ${sync.currentBlock} of ${sync.highestBlock} (${syncPercent(sync)}%)`;
  }

  function syncPercent(sync: {
    startingBlock: number;
    currentBlock: number;
    highestBlock: number;
  }) {
    const span = sync.highestBlock - sync.startingBlock;
    if (span <= 0) return 100;
    return Math.floor(((sync.currentBlock - sync.startingBlock) / span) * 100);
  }

  function peersText(outcome: Outcome): string {
    if (isNotAvailable(outcome)) return 'not available on this node yet';
    const node = resultOf<{ netstats?: { active?: number } }>(outcome);
    return String(node.netstats?.active ?? 0);
  }

  async function blockView(context: ViewContext, arg: string): Promise<void> {
    const number = /^\d+$/.test(arg) ? Number(arg) : Number.NaN;
    if (!Number.isSafeInteger(number)) {
      replace(view, heading('Block'), notice(`"${arg}" is not a block number.`));
      return;
    }
    const [info, operations, count] = await batch([
      ['getBlockInfo', { block: number }],
      ['getBlockOperations', { block: number }],
      ['getBlockCount'],
    ]);
    if (context.stale()) return;
    if (!info!.ok) {
      replace(view, heading(`Block ${number}`), notice(info!.error.message));
      return;
    }
    const block = resultOf<Block>(info!);
    const ops = resultOf<Operation[]>(operations!);
    const height = resultOf<number>(count!);
    const pager = h(
      'nav',
      { 'aria-label': 'Blocks', class: 'pager' },
      number > 0 ? link(`#/block/${number - 1}`, '← Previous block') : '',
      number + 1 < height ? link(`#/block/${number + 1}`, 'Next block →') : '',
    );
    const fields: Array<[string, Child]> = Object.entries(block).map(([key, value]) => {
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
    });
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

  async function operationView(context: ViewContext, arg: string): Promise<void> {
    const ophash = arg.toLowerCase().replace(/^0x/, '');
    if (!/^[0-9a-f]{64}$/.test(ophash)) {
      replace(view, heading('Operation'), notice(`"${arg}" is not an ophash (64 hex digits).`));
      return;
    }
    let shownBlock = -1;
    async function refresh(): Promise<void> {
      const found = await rpc<Operation[]>('findOperation', { ophash });
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
      shownBlock = op.block;
      const fields: Array<[string, Child]> = [
        ['ophash', mono(op.ophash)],
        [
          'status',
          op.block > 0
            ? h(
                'span',
                null,
                'in block ',
                blockLink(op.block),
                ` (${op.maturation ?? 0} blocks on top)`,
              )
            : 'pending',
        ],
        ['type', `${optypeName(op.optype)} (optype ${op.optype})`],
        ['description', op.optxt],
        ['signer', walletLink(op.signer_account)],
        ['n_operation', String(op.n_operation)],
        ['amount', op.amount === undefined ? '' : `${op.amount} (${amountOf(op)})`],
        ['fee', `${op.oprice} (${coins(op.oprice)})`],
        ['time', when(op.time)],
      ];
      for (const [key, value] of Object.entries(op)) {
        if (
          [
            'ophash',
            'block',
            'maturation',
            'optype',
            'optxt',
            'signer_account',
            'n_operation',
            'amount',
            'oprice',
            'time',
            'senders',
            'receivers',
          ].includes(key)
        )
          continue;
        fields.push([key, typeof value === 'object' ? JSON.stringify(value) : String(value)]);
      }
      replace(
        view,
        heading('Operation'),
        section('Details', 'op-heading', facts(fields)),
        section(
          'Senders',
          'senders-heading',
          (op.senders ?? []).length === 0
            ? notice('No senders.')
            : table(
                'Senders',
                ['Wallet', 'Payload', 'Payload type', ...amountHeader(op.senders ?? [])],
                (op.senders ?? []).map((s) => [
                  walletLink(s.account),
                  mono(s.payload === '' ? '(none)' : s.payload),
                  String(s.payload_type),
                  ...amountCell(op.senders ?? [], s.amount),
                ]),
              ),
        ),
        section(
          'Receivers',
          'receivers-heading',
          (op.receivers ?? []).length === 0
            ? notice('No receivers.')
            : table(
                'Receivers',
                ['Wallet', ...amountHeader(op.receivers ?? [])],
                (op.receivers ?? []).map((r) => [
                  walletLink(r.account),
                  ...amountCell(op.receivers ?? [], r.amount),
                ]),
              ),
        ),
      );
      status.textContent =
        op.block > 0 ? `Operation is in block ${op.block}.` : 'Operation is pending.';
    }
    await refresh();
    context.onPoll(async () => {
      if (shownBlock <= 0) await refresh();
    });
  }

  /** Senders and receivers carry their own amount only in H/W-check results. */
  function amountHeader(parts: Array<{ amount?: string }>): string[] {
    return parts.some((part) => part.amount !== undefined) ? ['Amount'] : [];
  }

  function amountCell(parts: Array<{ amount?: string }>, amount: string | undefined): Child[] {
    return parts.some((part) => part.amount !== undefined) ? [amount ?? ''] : [];
  }

  function involves(op: Operation, wallet: string): boolean {
    return (
      op.signer_account === wallet ||
      (op.senders ?? []).some((s) => s.account === wallet) ||
      (op.receivers ?? []).some((r) => r.account === wallet)
    );
  }

  async function walletView(context: ViewContext, arg: string): Promise<void> {
    const wallet = arg;
    const [info, count, pending] = await batch([
      ['getWalletInfo', { wallet }],
      ['getBlockCount'],
      ['getPendingOperation'],
    ]);
    if (context.stale()) return;
    if (!info!.ok) {
      replace(view, heading('Wallet'), notice(info!.error.message));
      return;
    }
    const data = resultOf<Record<string, string | number>>(info!);
    const height = resultOf<number>(count!);
    const found: Operation[] = resultOf<Operation[]>(pending!).filter((op) => involves(op, wallet));
    const fields: Array<[string, Child]> = Object.entries(data).map(([key, value]) => {
      if (key === 'wallet') return ['wallet', mono(String(value))];
      if (['balance', 'volume_lock', 'volume_timelock'].includes(key))
        return [key, coins(String(value))];
      return [key, String(value)];
    });
    const opsPart = h('div');
    const more = h('button', { type: 'button' }, `Look ${WALLET_SCAN_BLOCKS} blocks further back`);
    let scannedFrom = height;
    replace(
      view,
      heading('Wallet', ' ', mono(wallet)),
      section('Balance and state', 'wallet-heading', facts(fields)),
      section('Operations', 'wallet-ops-heading', opsPart, more),
    );

    async function scanBack(): Promise<void> {
      const to = scannedFrom - 1;
      const from = Math.max(0, scannedFrom - WALLET_SCAN_BLOCKS);
      const calls: Call[] = [];
      for (let block = to; block >= from; block--) calls.push(['getBlockOperations', { block }]);
      const outcomes = calls.length === 0 ? [] : await batch(calls);
      if (context.stale()) return;
      for (const outcome of outcomes) {
        found.push(
          ...resultOf<Operation[]>(outcome)
            .filter((op) => involves(op, wallet))
            .reverse(),
        );
      }
      scannedFrom = from;
      more.hidden = from === 0;
      const range = `blocks ${from} to ${height - 1}`;
      replace(
        opsPart,
        found.length === 0
          ? notice(`No operations of this wallet in ${range} or pending.`)
          : operationsTable(`Operations of this wallet (pending and ${range})`, found),
      );
    }
    more.addEventListener('click', () => {
      scanBack().catch(showProblem);
    });
    await scanBack();
  }

  async function tokenView(context: ViewContext, arg: string): Promise<void> {
    const [info, holders] = await batch([
      ['infoToken', { wallet: arg }],
      ['holderToken', { wallet: arg }],
    ]);
    if (context.stale()) return;
    if (isNotAvailable(info!)) {
      replace(
        view,
        heading('Token', ' ', mono(arg)),
        notice('Token methods are not available on this node yet.'),
      );
      return;
    }
    if (!info!.ok) {
      replace(view, heading('Token', ' ', mono(arg)), notice(info!.error.message));
      return;
    }
    const token = resultOf<Record<string, string | number | boolean>>(info!);
    const decimals = Number(token.decimal ?? 0);
    const unquote = (value: unknown) => String(value).replace(/^'(.*)'$/, '$1');
    const fields: Array<[string, Child]> = Object.entries(token).map(([key, value]) => {
      if (key === 'issuer' || key === 'owner') return [key, walletLink(String(value))];
      if (['symbol', 'name', 'summary'].includes(key)) return [key, unquote(value)];
      return [key, String(value)];
    });
    let holdersPart: Child;
    if (!holders!.ok) {
      holdersPart = notice(holders!.error.message);
    } else {
      const list =
        resultOf<{ holder: Array<Record<string, string | boolean>> }>(holders!).holder ?? [];
      holdersPart =
        list.length === 0
          ? notice('No holders.')
          : table(
              'Holders',
              ['Wallet', 'Balance', 'Locked', 'Time-locked', 'Can transfer'],
              list.map((holder) => [
                walletLink(String(holder.wallet)),
                units(String(holder.balance), decimals),
                units(String(holder.volumeLock), decimals),
                units(String(holder.volumeTimeLock), decimals),
                holder.transfer ? 'yes' : 'no',
              ]),
            );
    }
    replace(
      view,
      heading(`Token ${unquote(token.symbol ?? '')}`.trim(), ' ', mono(arg)),
      section('Token', 'token-heading', facts(fields)),
      section('Holders', 'holders-heading', holdersPart),
    );
  }

  async function networkView(context: ViewContext): Promise<void> {
    const syncPart = h('div');
    const nodePart = h('div');
    const peersPart = h('div');
    replace(
      view,
      heading('Network'),
      section('Sync progress', 'sync-heading', syncPart),
      section('This node', 'node-heading', nodePart),
      section('Peers', 'peers-heading', peersPart),
    );
    async function refresh(): Promise<void> {
      const [sync, node, connections, version, protocol] = await batch([
        ['blockSyncing'],
        ['nodeStatus'],
        ['getConnection'],
        ['getNodeVersion'],
        ['getProtocolVersion'],
      ]);
      if (context.stale()) return;
      if (isNotAvailable(sync!)) {
        replace(syncPart, notice('Sync progress is not available on this node yet.'));
      } else {
        const data = resultOf<{
          startingBlock: number;
          currentBlock: number;
          highestBlock: number;
        }>(sync!);
        const percent = syncPercent(data);
        replace(
          syncPart,
          h('label', { for: 'sync-progress' }, syncText(sync!)),
          ' ',
          h('progress', { id: 'sync-progress', max: 100, value: percent }, `${percent}%`),
          facts([
            ['Started at block', String(data.startingBlock)],
            ['Current block', String(data.currentBlock)],
            ['Highest known block', String(data.highestBlock)],
          ]),
        );
      }
      const nodeFacts: Array<[string, Child]> = [];
      if (version!.ok) nodeFacts.push(['Version', resultOf<{ version: string }>(version!).version]);
      if (protocol!.ok) {
        const { netprotocol } = resultOf<{ netprotocol: { ver: number; ver_a: number } }>(
          protocol!,
        );
        nodeFacts.push(['Network protocol', `${netprotocol.ver}.${netprotocol.ver_a}`]);
      }
      if (isNotAvailable(node!)) {
        nodeFacts.push(['Status', 'not available on this node yet']);
      } else if (node!.ok) {
        const data = resultOf<Record<string, unknown>>(node!);
        for (const key of ['status_s', 'ready_s', 'port', 'blocks']) {
          if (data[key] !== undefined) nodeFacts.push([key, String(data[key])]);
        }
        const stats = data.netstats as Record<string, number> | undefined;
        if (stats)
          nodeFacts.push(['Connections', `${stats.active ?? 0} active, ${stats.total ?? 0} total`]);
      }
      replace(nodePart, facts(nodeFacts));
      if (isNotAvailable(connections!)) {
        replace(peersPart, notice('Peer information is not available on this node yet.'));
      } else {
        const list =
          resultOf<{ connection: Array<Record<string, string | number | boolean>> }>(connections!)
            .connection ?? [];
        replace(
          peersPart,
          list.length === 0
            ? notice('Not connected to any peer.')
            : table(
                'Connected peers',
                ['Address', 'Direction', 'Connected', 'Sent', 'Received', 'Version'],
                list.map((peer) => [
                  mono(`${peer.ip}:${peer.port}`),
                  peer.server ? 'inbound' : 'outbound',
                  `${peer.secs} s`,
                  `${peer.sent} bytes`,
                  `${peer.recv} bytes`,
                  `${peer.appver} (protocol ${peer.netver}.${peer.netver_a})`,
                ]),
              ),
        );
      }
    }
    await refresh();
    context.onPoll(refresh);
  }

  // ---- Routing, search, polling ---------------------------------------------------------------

  let generation = 0;
  let poll: (() => Promise<void>) | undefined;
  let firstRender = true;

  async function navigate(): Promise<void> {
    const hash = location.hash;
    // In-page anchors (the skip link) are not routes.
    if (hash !== '' && hash !== '#' && !hash.startsWith('#/')) return;
    const current = ++generation;
    poll = undefined;
    const [kind = '', arg = ''] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    const context: ViewContext = {
      stale: () => current !== generation,
      onPoll(refresh) {
        if (current === generation) poll = refresh;
      },
    };
    status.textContent = 'Loading…';
    try {
      if (kind === '') await homeView(context);
      else if (kind === 'block') await blockView(context, arg);
      else if (kind === 'op') await operationView(context, arg);
      else if (kind === 'wallet') await walletView(context, arg);
      else if (kind === 'token') await tokenView(context, arg);
      else if (kind === 'network') await networkView(context);
      else
        replace(
          view,
          heading('Not found'),
          notice('There is no such page.'),
          link('#/', 'Latest blocks'),
        );
      if (context.stale()) return;
      clearProblem();
      if (status.textContent === 'Loading…') status.textContent = '';
      // Moving focus to the new heading tells screen readers the page changed (not on first load).
      if (!firstRender) view.querySelector<HTMLElement>('h2')?.focus();
    } catch (error) {
      if (context.stale()) return;
      status.textContent = '';
      showProblem(error);
    } finally {
      firstRender = false;
    }
  }

  async function tick(): Promise<void> {
    if (live && poll !== undefined && !document.hidden) {
      try {
        await poll();
        clearProblem();
      } catch (error) {
        showProblem(error);
      }
    }
    setTimeout(tick, POLL_MS);
  }

  async function searchTarget(query: string): Promise<string | undefined> {
    const text = query.trim();
    if (/^\d+$/.test(text)) return `#/block/${Number(text)}`;
    const hex = text.replace(/^0x/i, '');
    if (/^[0-9a-f]{64}$/i.test(hex)) return `#/op/${hex.toLowerCase()}`;
    if (/^[A-Za-z0-9]{2}[0-9a-f]{46}$/i.test(text)) {
      // Token and wallet addresses look alike: a token is whatever infoToken knows.
      const [token] = await batch([['infoToken', { wallet: text }]]);
      return token!.ok ? `#/token/${text}` : `#/wallet/${text}`;
    }
    return undefined;
  }

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    searchError.textContent = '';
    searchInput.removeAttribute('aria-invalid');
    searchTarget(searchInput.value)
      .then((target) => {
        if (target === undefined) {
          searchInput.setAttribute('aria-invalid', 'true');
          searchError.textContent =
            'Enter a block number, an ophash (64 hex digits) or a wallet or token address.';
          searchInput.focus();
          return;
        }
        if (location.hash === target) void navigate();
        else location.hash = target;
      })
      .catch(showProblem);
  });

  document.getElementById('skip-link')!.addEventListener('click', (event) => {
    event.preventDefault();
    document.getElementById('main')!.focus();
  });

  window.addEventListener('hashchange', () => {
    void navigate();
  });

  rpc<{ version: string }>('getNodeVersion')
    .then(({ version }) => {
      document.getElementById('version')!.textContent = version;
    })
    .catch(() => undefined);

  void navigate();
  setTimeout(tick, POLL_MS);
}
