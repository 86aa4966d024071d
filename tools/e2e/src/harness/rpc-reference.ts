/**
 * docs/rpc.md: written from the method catalogue (names, groups, summaries, params with kinds,
 * bounds and defaults) and the examples of a real run (`rpc-examples.ts`), and read back by
 * `rpc-docs.test.ts`. Each example sits behind an `<!-- example method#n -->` marker followed by
 * its request and response blocks, so the test can find them again.
 */
import { type AnyParam, catalogue, METHOD_NAMES, type MethodSpec } from '@chain/rpc-client';
import { PROTOCOL_ERRORS } from '@chain/spec';
import { domainErrorRows } from './rpc-error-rows';
import {
  EXAMPLE_NODE_ARGS,
  exampleKey,
  type JsonRpcReply,
  type JsonRpcRequest,
  type RpcExample,
} from './rpc-examples';
import { PUSH_PROTOCOL } from './rpc-push-reference';

export const GENERATE_COMMAND =
  'npx nx run chain-node:build && npx tsx --conditions=@chain/source tools/e2e/src/harness/generate-rpc-docs.ts';

/** Arrays in documented replies are cut to this many items (the test compares item shapes). */
const MAX_ARRAY_ITEMS = 3;

const GROUP_TITLES: Record<MethodSpec['group'], string> = {
  token: 'Token',
  operations: 'Operations',
  participation: 'Participating node',
  wallet: 'Wallet',
  block: 'Block',
  network: 'Network node',
  stats: 'Stats',
  push: 'Push (WebSocket)',
};

/** What a param means where its name and kind do not say it all (from SPEC.md). */
const PARAM_NOTES: Record<string, string> = {
  'createToken.wallet': 'issuer: a wallet of the key store',
  'createToken.function': 'additional features (an "advanced" token: lock, burn, mint)',
  'createToken.totalAmount': 'total supply in whole tokens',
  'createToken.decimal': "the token's decimal places",
  'adminToken.sender': "the token's owner",
  'adminToken.receiver':
    'the holder concerned: transferWalletEnabled, lockWalletVolume, burnWalletVolume, mintWalletVolume, ownershipWallet (new owner)',
  'adminToken.amount': 'whole tokens: lockWalletVolume, burnWalletVolume, mintWalletVolume',
  'adminToken.select': 'on (true) or off: transferEnabled, transferWalletEnabled',
  'adminToken.method':
    "what to do; a param the method does not use (`receiver`, `amount`, `select`, `lockBlocks` outside the methods named with them) is refused, -32602 naming it, never ignored. burnWalletVolume burns from the holder's unlocked volume only (balance less `volumeLock` and a running `volumeTimeLock`): lower the lock first to burn locked volume",
  'holderToken.wallet': 'token address; also accepted beside `method`, as in the spec example',
  'infoToken.wallet': 'token address; also accepted beside `method`, as in the spec example',
  'sendToken.amount': 'whole tokens, up to the token decimal places',
  'sendToken.token': 'token address',
  'sendTo.amount': 'whole coins, up to 18 decimal places',
  'sendTo.payload': 'data carried by the operation',
  'rawSendTo.senderNOperation': 'the last n_operation of the sender (getWalletInfo)',
  'rawSendTo.amount': 'whole coins',
  'InfoRaw.rawoperation':
    'a rawSendTo or `chain-node sign-raw` result, or any blob built by docs/wire-format.md',
  'excuteRaw.rawoperation':
    'a raw blob (rawSendTo, `chain-node sign-raw`, docs/wire-format.md): every operation in it is validated, the valid ones sent',
  'privSendTo.priv': 'encoded private key (`ca022000` + 64 hex, as dumpPrivateKey gives it)',
  'privSendTo.amount': 'whole coins',
  'getBlockOperations.block': 'block number',
  'findOperation.ophash': 'pending or mined ophash',
  'getNodePart.wallet': 'a participating or mined wallet',
  'nodeStep1.amount': 'stake, whole coins (locked while participating)',
  'nodeStep1.miner': 'wallet that receives the mined rewards',
  'nodeStep1.penalty':
    'percent of the stake taken at cancellation, shared by the other participants',
  'nodeStep1.extension': 'stay participating after the lock time',
  'nodeStep3_1.confirmer': 'the TOP wallet that approves',
  'nodeStep3_1.amount': 'stake, whole coins',
  'nodeStep3_2.select': 'approve (true) or reject (false)',
  'nodeStep3_2.confirmer': 'the TOP wallet',
  'nodeStep3_2.passphrase': "the confirmer's",
  'nodeStep3_2.target': 'the wallet waiting for approval',
  'nodeStep4_1.confirmer': 'the TOP wallet',
  'nodeStep4_2.select': 'approve (true) or reject (false)',
  'nodeStep4_2.target': 'the MIDDLE wallet waiting for H/W approval',
  'nodeStepMDList.wallet': 'the TOP wallet',
  'nodeStepBTList.main': 'the TOP wallet',
  'nodeStepBTList.wallet': 'the MIDDLE wallet',
  'nodeStep5_1.main': 'the TOP wallet',
  'nodeStep5_1.confirmer': 'the MIDDLE wallet that approves',
  'nodeStep5_1.amount': 'stake, whole coins',
  'nodeStep5_2.confirmer': 'the MIDDLE wallet',
  'nodeStep5_2.passphrase': "the confirmer's",
  'nodeStep5_2.select': 'approve (true) or reject (false)',
  'blockchainStart.wallet': 'the TOP wallet',
  'blockchainStart.mine': 'the mine wallet (its key in the key store signs blocks)',
  'blockchainStart.minepass': "the mine wallet's passphrase",
  'blockchainStart.share':
    'the share wallet; the spec example names it `mine` a second time, which is accepted (given both ways, the two must be equal, else -32602 naming `share`)',
  'blockchainStart.nodes': 'sub-node IPs, `ip1;ip2;...`',
  'getKeyStoreInfo.max': 'most wallets returned',
  'getKeyStoreInfo.after': 'the last wallet of the previous page (wallets come in creation order)',
  'inputPrivateKey.private': 'unencrypted key: 64 hex digits (or the encoded form)',
  'activeWallet.private':
    'encoded private key (as dumpPrivateKey answers it); give this or `passphrase`, exactly one',
  'activeWallet.passphrase':
    "extension: the wallet's key-store passphrase, instead of `private`: the key is taken from the key store and never crosses the wire",
  'unlockWallet.wallet':
    'the wallet; a key file made elsewhere may be named by its Ethereum address (40 hex digits, `0x` optional: the `eth_address` walletRefresh `details` lists): the passphrase resolves the file into a wallet of the key store, then unlocks it',
  'getWalletInfo.wallet':
    'the wallet; a key file of the key store may be named by its Ethereum address (40 hex digits, `0x` optional) once resolved (unlockWallet), which answers for its wallet (`wallet` is then its chain address)',
  'verifyMessage.data':
    'a signed message object as signMessage returns it: every field required; a malformed one is an error naming it (`data.sig`)',
  'walletRefresh.details':
    'return `{loaded, unresolved, failed}` instead of the boolean (see the WalletRefreshDetails object)',
  'addNode.nodes': '`ip1:port1;ip2:port2;...`; a missing port means 9714',
  'addBlacklist.why': 'reason recorded with the entry',
  'nodeIPStats.ip': 'peer IP',
};

/** What a result field means where the name does not say it (DESIGN.md and docs/decisions.md). */
const FIELD_NOTES: Record<string, string> = {
  'OperationObject.block': '0 while pending',
  'OperationObject.time': 'Unix seconds',
  'OperationObject.opblock': 'position in the block (in the pool while pending)',
  'OperationObject.maturation': 'blocks on top of its block; null while pending',
  'OperationObject.nopsp': "operations in the operation's block",
  'OperationObject.niopsp': 'zero-fee operations among them',
  'OperationObject.oprice': 'fee paid, native base units',
  'OperationObject.ioprice': 'act price in force, native base units',
  'OperationObject.amount':
    'base units: 18 decimals for coins, the token decimal places for tokens',
  'OperationObject.ophash': 'block u32le, account u32le, n_operation u32le, digest (decodeOpHash)',
  'WalletInfo.balance': 'native base units, all of it',
  'WalletInfo.volume_lock': 'staked by participation',
  'WalletInfo.volume_timelock': 'rewards not matured yet; spendable = balance - both volumes',
  'WalletInfo.state':
    '`normal wallet` (active), `inactive wallet`, `unknown wallet`, `token address` (a token: it has no key and receives no coins)',
  'WalletInfo.key_state': 'the key store: `unlocked`, `locked`, `not in key store`',
  'NodePart.nodeIndex': 'position in the tree in joining order; the TOP node is 0',
  'NodePart.penalty':
    "percent of a cancelling participant's stake (nodeCancel) taken and shared among the tree's other active participants pro rata by stake, to the last base unit; with nobody to share it, none is taken",
  'NodePart.state': 'two letters, e.g. `MN` for a mining TOP node',
  'NodePart.startTimestamp': 'Unix seconds of the block in which the participation began',
  'NodePart.lockTime':
    "a block height: where the current lock period ends. Then the participation ends (stake released, no penalty) unless `extension` is set or it has sub-nodes, which renews it for the network's lock time in blocks",
  'TokenHolders.more': 'more holders follow this page: ask again with `after` = its last `wallet`',
  'TokenInfo.name': 'in single quotes; a quote or backslash inside is escaped with a backslash',
  'TokenInfo.symbol': 'in single quotes, escaped as `name`',
  'TokenInfo.summary': 'in single quotes, escaped as `name`',
  'WalletRefreshDetails.loaded': 'wallets of the key store after the rescan (getKeyStoreCount)',
  'WalletRefreshDetails.unresolved':
    'key files made elsewhere, waiting for their passphrase: `file`, `eth_address` (null when the file gives none); unlockWallet with `eth_address` (or the chain address) and the passphrase makes one a wallet. While any is listed, walletRefresh without `details` answers `false`',
  'WalletRefreshDetails.failed': 'files that could not be loaded: `file`, `reason`',
  'ActivationResult.ophash':
    "extension: the activation operation's ophash (block 0 while pending; findOperation follows it)",
  'BlockInfo.timestamp': 'Unix seconds',
  'BlockInfo.hmr': "the producer's wallet",
  'BlockInfo.reward':
    'extra: what the block paid out, native base units: its subsidy and its fees, to the producer (or, for a TOP node, its miner, share and participant wallets); recorded when this node executed the block, absent for the genesis block, for blocks below a snapshot this node joined from, and for blocks it executed with a version that did not record it',
  'BlockInfo.subsidy':
    "extra: the part of `reward` the block minted: the network's subsidy for a started TOP node's block, 0 for a genesis producer's",
  'BlockInfo.one_hash': 'previous block hash',
  'BlockInfo.three_hash': 'operations Merkle root',
  'BlockInfo.four_hash': 'state root',
  'BlockInfo.nopsp': 'operations that pay a fee',
  'BlockInfo.niopsp': 'zero-fee operations',
  'BlockInfo.trx_fee': 'fees of the block, native base units',
  'NodeStatus.nodeservers': 'known servers; each `ip` masked as getBlacklist masks it',
  'NodeStatus.lastreorg':
    "extension: the last reorganisation this node adopted since it started (a peer's heavier branch replaced its last `depth` blocks after `fork_block`; `old_head` and `new_head` with their block hashes, `peer` masked, `deep` when more than 3 blocks, `timestamp` in Unix seconds), as the `reorganizations` push event sends it; null when none",
  'Blacklist.blacklist':
    'the entries; `ip` masked, never another valid address: IPv4 keeps two octets (`203.0.*.*`), IPv6 its first three groups in canonical form with one `*` per hidden group (`2001:db8:0:*:*:*:*:*`), an IPv4-mapped IPv6 address is masked as the IPv4 address it is (`::ffff:127.0.0.1` shows `127.0.*.*`)',
  'NodeStatus.prefix': "the network's 2-character address prefix (docs/wire-format.md)",
  'NodeStatus.genesis':
    'genesis hash, 64 hex: what operation signatures commit to (docs/wire-format.md)',
};

/** Results that are the operation object with a few fields more or less. */
const OPERATION_LIKE = new Set(['CreateTokenResult', 'HardwareCheckResult', 'ExecuteRawResult']);

// ---- Rendering ------------------------------------------------------------------------------------

function specOf(name: string): MethodSpec {
  return (catalogue as Record<string, MethodSpec>)[name]!;
}

function paramsOf(spec: MethodSpec): Array<[string, AnyParam]> {
  return Object.entries(spec.params);
}

function describeKind(param: AnyParam): string {
  const { bounds } = param;
  switch (param.kind) {
    case 'integer': {
      if (bounds.min !== undefined && bounds.max !== undefined) {
        return `integer, ${bounds.min} to ${bounds.max}`;
      }
      return bounds.min !== undefined ? `integer, at least ${bounds.min}` : 'integer';
    }
    case 'boolean':
      return 'boolean';
    case 'amount':
      return 'amount (decimal string)';
    case 'hex': {
      if (bounds.exactBytes !== undefined) return `hex, ${bounds.exactBytes} bytes`;
      return bounds.maxBytes !== undefined ? `hex, at most ${bounds.maxBytes} bytes` : 'hex';
    }
    case 'wallet':
      return bounds.ethereum ? "address, or a key file's 0x address" : 'address';
    case 'object':
      return 'object';
    case 'enum':
      return `one of ${(bounds.values ?? []).map((value) => `\`${value}\``).join(', ')}`;
    default:
      if (bounds.maxLength !== undefined) return `string, at most ${bounds.maxLength}`;
      return bounds.minLength === 1 ? 'string, not empty' : 'string';
  }
}

function presenceOf(param: AnyParam): string {
  if (param.presence === 'required') return 'yes';
  if (param.presence === 'defaulted') return `no (default \`${String(param.defaultValue)}\`)`;
  return 'no';
}

function paramTable(name: string, spec: MethodSpec): string[] {
  const params = paramsOf(spec);
  if (params.length === 0) return ['No params.'];
  return [
    '| param | type | required | notes |',
    '| --- | --- | --- | --- |',
    ...params.map(([key, param]) => {
      const notes = [PARAM_NOTES[`${name}.${key}`], param.isSecret ? 'secret: never logged' : '']
        .filter(Boolean)
        .join('; ');
      return `| \`${key}\` | ${describeKind(param)} | ${presenceOf(param)} | ${notes} |`;
    }),
  ];
}

const SCALAR_RESULTS = new Set(['integer', 'boolean', 'string']);

/** The types a result name lists (`boolean | WalletRefreshDetails`: one or the other, by the params). */
function resultTypes(name: string): string[] {
  return name.split(' | ');
}

function resultLine(spec: MethodSpec): string {
  const shown = resultTypes(spec.result.name)
    .map((name) => {
      const base = name.replace(/\[\]$/, '');
      return SCALAR_RESULTS.has(base) ? `\`${name}\`` : `[\`${name}\`](#${anchor(base)})`;
    })
    .join(' or ');
  const nested = spec.nestedResult
    ? ' inside `{ "result": …, "id": <integer>, "jsonrpc": "2.0" }`, as the spec shows: `id` is the request id, which must be a safe integer (another is refused, `-32600`)'
    : '';
  return `**Result:** ${shown}${nested}`;
}

function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** The errors a method can answer, by what its params and result are. */
function typicalErrors(spec: MethodSpec): string[] {
  const params = paramsOf(spec);
  const has = (test: (param: AnyParam, key: string) => boolean) =>
    params.some(([key, param]) => test(param, key));
  const producesOperation = [
    'OperationObject',
    'CreateTokenResult',
    'HardwareCheckResult',
    'ExecuteRawResult',
  ].includes(spec.result.name);
  const lines: string[] = [];
  if (params.length > 0) {
    lines.push(
      '`-32602 INVALID_PARAMS`: a param missing, unknown or malformed (`data.param` names it)',
    );
  }
  if (spec.keyMaterial) {
    lines.push('`-32003 KEYS_NOT_ALLOWED`: called off loopback without `--rpc-allow-keys`');
  }
  if (has((param) => param.kind === 'wallet')) {
    lines.push(
      '`1002 INVALID_ACCOUNT`: an address with a bad checksum or another network prefix (`BAD_ADDRESS_CHECKSUM`, `WRONG_NETWORK_PREFIX`, `INVALID_ADDRESS_FORMAT`)',
    );
  }
  if (has((param, key) => param.isSecret && key !== 'priv' && key !== 'private')) {
    lines.push(
      '`1010 UNKNOWN_WALLET`, `1030 WRONG_PASSPHRASE`, `1015 WALLET_LOCKED`, `1037 TOO_MANY_ATTEMPTS`: the key store refused the key',
    );
  }
  if (spec.name === 'getKeyStoreInfo') {
    lines.push('`1010 UNKNOWN_WALLET`: `after` is not a wallet of the key store');
  }
  if (has((param) => param.kind === 'amount')) {
    lines.push('`1034 INVALID_AMOUNT`: more decimals than allowed (`TOO_PRECISE`), too large');
  }
  if (has((_param, key) => key === 'block')) {
    lines.push('`1003 BLOCK_NOT_FOUND`: no such block');
  }
  if (producesOperation) {
    lines.push(
      '`1031 INSUFFICIENT_FUNDS`, `1033 INACTIVE_ACCOUNT`, `1035 DUPLICATE_OPERATION`, `1038 MEMPOOL_FULL`: the operation was refused',
    );
  }
  if (producesOperation && spec.group === 'token') lines.push('`1040 TOKEN_RULE`: a token rule');
  if (spec.group === 'participation') {
    lines.push('`1060 PARTICIPATION_RULE`: a rule of the participation procedure');
  }
  if (has((_param, key) => key === 'ip' || key === 'nodes')) {
    lines.push(
      '`1016 INVALID_DATA`: not an IP address or `ip:port` (`BAD_IP`, `BAD_PEER_ADDRESS`)',
    );
  }
  return lines;
}

/** JSON for the docs: two-space indentation, arrays cut to MAX_ARRAY_ITEMS items. */
export function documentedJson(value: unknown): string {
  const shortened = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.slice(0, MAX_ARRAY_ITEMS).map(shortened);
    if (typeof item === 'object' && item !== null) {
      return Object.fromEntries(
        Object.entries(item).map(([key, inner]) => [key, shortened(inner)]),
      );
    }
    return item;
  };
  return JSON.stringify(shortened(value), null, 2);
}

function exampleBlock(example: RpcExample): string[] {
  const { error } = example.reply;
  const title = example.title
    ? `Example: ${example.title}`
    : error
      ? 'Example (answered with an error)'
      : 'Example';
  return [
    `<!-- example ${exampleKey(example)} -->`,
    `**${title}**`,
    '',
    '```json',
    documentedJson(example.request),
    '```',
    '',
    '```json',
    documentedJson(example.reply),
    '```',
    '',
  ];
}

function observedErrors(examples: RpcExample[]): string[] {
  return examples
    .filter((example) => example.reply.error !== undefined)
    .map((example) => {
      const error = example.reply.error!;
      const reason = error.data?.reason ? ` ${error.data.reason}` : '';
      return `\`${error.code}${reason}\`: ${error.message.replace(/\|/g, '\\|')} (example${example.title ? `: ${example.title}` : ''})`;
    });
}

function methodSection(name: string, examples: RpcExample[]): string[] {
  const spec = specOf(name);
  const mine = examples.filter((example) => example.method === name);
  const errors = [...observedErrors(mine), ...typicalErrors(spec)];
  const lines = [`### ${name}`, '', spec.summary, '', ...paramTable(name, spec), ''];
  lines.push(resultLine(spec), '');
  if (errors.length > 0) {
    lines.push('**Errors:**', '', ...errors.map((line) => `- ${line}`), '');
  }
  for (const example of mine) lines.push(...exampleBlock(example));
  if (mine.length === 0) lines.push('_No example._', '');
  return lines;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `field | type | notes` rows of a result value, nested fields as `senders[].account`. */
function fieldRows(type: string, value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const rows: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const path = `${prefix}${key}`;
    let kind = jsonType(inner);
    if (Array.isArray(inner)) {
      const first = inner[0];
      kind = first === undefined ? 'array' : `array of ${jsonType(first)}`;
    }
    const note =
      prefix === ''
        ? (FIELD_NOTES[`${type}.${key}`] ??
          (OPERATION_LIKE.has(type) ? FIELD_NOTES[`OperationObject.${key}`] : undefined) ??
          '')
        : '';
    rows.push(`| \`${path}\` | ${kind} | ${note} |`);
    if (Array.isArray(inner)) rows.push(...fieldRows(type, inner[0], `${path}[].`));
    else rows.push(...fieldRows(type, inner, `${path}.`));
  }
  return rows;
}

/** One section per result object, its fields read from a successful example. */
function resultSections(examples: RpcExample[]): string[] {
  const types = new Map<string, string[]>();
  for (const name of METHOD_NAMES) {
    for (const type of resultTypes(specOf(name).result.name)) {
      const base = type.replace(/\[\]$/, '');
      if (SCALAR_RESULTS.has(base)) continue;
      types.set(base, [...(types.get(base) ?? []), name]);
    }
  }
  const lines = ['## Result objects', ''];
  for (const [type, methods] of [...types].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `### ${type}`,
      '',
      `Returned by ${methods.map((m) => `[${m}](#${anchor(m)})`).join(', ')}.`,
      '',
    );
    const sample = examples.find(
      (example) =>
        methods.includes(example.method) &&
        example.reply.error === undefined &&
        typeof example.reply.result === 'object',
    );
    if (sample === undefined) {
      lines.push(
        'No example yet (its methods are not available on the node the examples ran on); SPEC.md describes it.',
        '',
      );
      continue;
    }
    let value = sample.reply.result;
    if (specOf(sample.method).nestedResult) value = (value as { result: unknown }).result;
    if (Array.isArray(value)) value = value[0];
    const rows = fieldRows(type, value);
    if (rows.length === 0) {
      lines.push('No fields in the example (an empty list).', '');
      continue;
    }
    lines.push('| field | type | notes |', '| --- | --- | --- |', ...rows, '');
  }
  return lines;
}

function intro(examples: RpcExample[]): string[] {
  const protocolExample = examples.filter((example) => !(example.method in catalogue));
  const toc = Object.entries(GROUP_TITLES).flatMap(([group, title]) => {
    const names = METHOD_NAMES.filter((name) => specOf(name).group === group);
    return [
      `- [${title}](#${anchor(title)}): ${names.map((n) => `[${n}](#${anchor(n)})`).join(' · ')}`,
    ];
  });
  const protocolRows = Object.entries(PROTOCOL_ERRORS).map(
    ([reason, { code, when }]) => `| ${code} | \`${reason}\` | ${when} |`,
  );
  const domainRows = domainErrorRows();
  return [
    '# JSON-RPC reference',
    '',
    '<!-- Generated by tools/e2e/src/harness/generate-rpc-docs.ts: edit that script, not this file. -->',
    '',
    'Every method of chain-node, grouped as in the specification: its params, its result, the errors it',
    'answers, and examples. **The examples are real**: requests sent to a dev node',
    `(\`chain-node start ${EXAMPLE_NODE_ARGS.join(' ')}\`) and the node's replies, recorded by`,
    '`tools/e2e/src/harness/rpc-examples.ts`.',
    'Addresses, hashes and times differ on every run; `tools/e2e/src/rpc-docs.test.ts` replays the same',
    'session against a fresh node and checks that every reply below still has the same shape (same keys',
    'and JSON types). Arrays in replies are cut to three items here. Regenerate after changing a method:',
    '',
    '```sh',
    GENERATE_COMMAND,
    '```',
    '',
    "A method the node does not implement yet answers `-32001 NOT_AVAILABLE` (\"method 'x' is not",
    'available yet"); its example shows that answer until it is built.',
    '',
    '## Contents',
    '',
    '- [Protocol](#protocol) · [Errors](#errors) · [Result objects](#result-objects)',
    ...toc,
    '',
    '## Protocol',
    '',
    "- `POST` to the node's URL (default `http://127.0.0.1:9713/`) with `Content-Type: application/json`.",
    '  `GET /` serves the explorer page and `GET /explorer/app.<digest>.js` its script; anything else but',
    '  POST is refused (`-32008`).',
    '- Request: `{"jsonrpc": "2.0", "method": …, "params": {…}, "id": 1}`. `params` is a named object',
    '  (or an array in the catalogue order below), omitted or `{}` for methods without params.',
    '- Response: `{"jsonrpc": "2.0", "id": "1", "result": …}` or `{…, "error": {…}}`. The `id` comes',
    '  back as a string, as the spec shows. Batches (arrays of requests) are answered in order;',
    '  notifications (no `id`) get no reply.',
    '- Integers and booleans may be sent as strings (`"12"`, `"true"`). Amounts are decimal strings of',
    '  whole coins or tokens (`"1.5"`); results carry **base units** as decimal strings (18 decimals for',
    "  the native coin, the token's `decimal` for tokens). Hex may have `0x` and either case. Unknown",
    '  params are refused, with a "did you mean".',
    '- JSON numbers are read exactly as written, never through a floating-point number: an amount given',
    '  as a number is its decimal text (`12345678901234567891` and `0.000000000000000001` are exact;',
    '  more fraction digits than allowed is the same `1034 TOO_PRECISE` as in a string; a sign or an',
    '  exponent is refused, -32602, as in a string); an integer must be an integer literal within its',
    '  range (`1.0`, `1e3`, `1.0000000000000001` are refused, -32602, naming the param); a numeric `id`',
    '  comes back with every digit (`"id": 12345678901234567890` answers `"id": "12345678901234567890"`),',
    '  one whose value is a safe integer as that integer (`7.0` answers `"7"`).',
    '- The edges, one rule each, the same for every method:',
    '  - `params: null` is refused (`-32600 INVALID_REQUEST`), with params or without: JSON-RPC 2.0',
    '    allows an object, an array, or nothing.',
    '  - No number param takes a sign: `-0` (a string or a JSON number) is refused like `-1`, by every',
    '    integer param as by every amount (`-32602`, naming the param).',
    '  - Strings are well-formed Unicode: one holding an unpaired UTF-16 surrogate (`"\\ud800"`) has no',
    '    UTF-8 form and is refused (`-32602`, naming the param; `data.msg` of verifyMessage: `1016',
    '    INVALID_SIGNED_MESSAGE`), so a signature always covers exactly the text sent. Length limits',
    '    count characters as Unicode code points: an emoji is one (16 fit a token symbol), as the',
    '    token rules count them on chain.',
    "  - rawSendTo's `senderNOperation` is the current n_operation: at most 4294967294, since the",
    '    operation gets the next one (`-32602` naming `senderNOperation` and the value sent).',
    '  - getNodePart nests the request `id` as an integer, as the spec types it: a request whose id is',
    '    not a safe integer (`"abc"`, `7.5`, `null`, 2^53 and beyond) is refused (`-32600`).',
    '  - A key repeated in one JSON object is refused, since JSON keeps only one of its values:',
    '    `{"wallet":"x","wallet":"y"}` in `params` is `-32602` naming `wallet` (inside a param:',
    '    naming the param, the message showing the path, `data.msg`); a repeated member of the request',
    "    object itself (`method`, `id`, ...) is `-32600`. The one exception is blockchainStart's",
    "    repeated `mine` (the spec's example): the first is the mine wallet, the second the share",
    '    wallet.',
    "  - holderToken and infoToken take `wallet` beside `method` (the spec's example) or in `params`;",
    '    given in both, the two must be equal, else `-32602` naming `wallet`.',
    '  - A refused value is echoed in the message only in part: at most its first 64 characters',
    "    (40 for a param's type error) and its length, so a 100 kB input gets a short message.",
    '- Authentication: none on loopback (the default bind). Bound elsewhere, HTTP Basic with',
    '  `--rpc-user`/`--rpc-password`, or the cookie in `<datadir>/.cookie`. Methods that carry raw keys',
    '  (activeWallet, dumpPrivateKey, inputPrivateKey, privSendTo) answer only on loopback unless',
    '  `--rpc-allow-keys`.',
    '- Push: a WebSocket upgrade on the same port and URL carries the same calls plus subscriptions',
    '  ([Push (WebSocket)](#push-websocket)).',
    '- From a shell: `chain-node call <method> key=value ...` (`--json` for scripts); from TypeScript:',
    '  `@chain/rpc-client`.',
    '',
    ...protocolExample.flatMap(exampleBlock),
    '## Errors',
    '',
    'An error reply carries `{"code": <integer>, "message": <text>, "data": {"reason": <UPPER_SNAKE>,',
    '"param": <the param at fault, when one is>}}`. `code` and `reason` are stable; match on them, not on',
    'the message.',
    '',
    '| code | reason | when |',
    '| --- | --- | --- |',
    ...protocolRows,
    '',
    'Domain errors (`DOMAIN_ERROR_CODES` of `@chain/spec`, which is `ErrorCode` in `@chain/crypto`; the SDK',
    'exports every code as `ERROR_CODES`):',
    '',
    'The reasons column lists every reason each code is answered with (`data.reason`), from the reason',
    'tables of `@chain/spec` (`reasonsByCode()`); a reason has one code. Reasons raised outside those',
    'tables (the address and hex parsers, the node\'s handlers) are named under "when".',
    '',
    '| code | name | when | reasons |',
    '| --- | --- | --- | --- |',
    ...domainRows,
    '',
    'excuteRaw answers each refused operation inside its result (`{"valid": false, "errors":',
    '"<REASON>: <message>"}`), as the spec shows, not as an error reply: `SIGNATURE_MISMATCH`,',
    '`INVALID_N_OPERATION`, `DUPLICATE_OPERATION` and `FEE_TOO_LOW` mostly arrive that way, since the',
    "node's own methods sign with the next n_operation and pay the act price.",
    '`tools/e2e/src/documented-errors.test.ts` provokes every code of these tables on a live node.',
    '',
  ];
}

/** The whole of docs/rpc.md. */
export function renderRpcReference(examples: RpcExample[]): string {
  const lines = intro(examples);
  for (const [group, title] of Object.entries(GROUP_TITLES)) {
    lines.push(`## ${title}`, '');
    if (group === 'push') lines.push(...PUSH_PROTOCOL);
    for (const name of METHOD_NAMES.filter((method) => specOf(method).group === group)) {
      lines.push(...methodSection(name, examples));
    }
  }
  lines.push(...resultSections(examples));
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

// ---- Reading back -------------------------------------------------------------------------------

export interface DocumentedExample {
  request: JsonRpcRequest;
  reply: JsonRpcReply;
}

/** The examples of docs/rpc.md by key (`sendTo#0`). */
export function parseDocumentedExamples(markdown: string): Map<string, DocumentedExample> {
  const found = new Map<string, DocumentedExample>();
  const pattern =
    /<!-- example (\S+) -->\n[\s\S]*?```json\n([\s\S]*?)\n```\n[\s\S]*?```json\n([\s\S]*?)\n```/g;
  for (const match of markdown.matchAll(pattern)) {
    found.set(match[1]!, {
      request: JSON.parse(match[2]!) as JsonRpcRequest,
      reply: JSON.parse(match[3]!) as JsonRpcReply,
    });
  }
  return found;
}

/** The param names of each method's table in docs/rpc.md. */
export function parseDocumentedParams(markdown: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const section of markdown.split(/^### /m).slice(1)) {
    const name = section.slice(0, section.indexOf('\n')).trim();
    const end = section.indexOf('\n**Result:');
    const body = end === -1 ? section : section.slice(0, end);
    params.set(
      name,
      [...body.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!),
    );
  }
  return params;
}

export interface DocumentedErrorCode {
  code: number;
  /** The protocol table's reason, or the domain table's ErrorCode name. */
  name: string;
  /** The reasons the row names (in backticks): the reason itself for a protocol row. */
  reasons: string[];
  /** Which table: the protocol one (-32xxx) or the domain one. */
  table: 'protocol' | 'domain';
}

/** Every row of the two tables under "## Errors" in docs/rpc.md. */
export function parseDocumentedErrorCodes(markdown: string): DocumentedErrorCode[] {
  const start = markdown.indexOf('\n## Errors\n');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  const rows: DocumentedErrorCode[] = [];
  for (const match of section.matchAll(/^\| (-?\d+) \| `([A-Z_]+)` \| (.*) \|$/gm)) {
    const code = Number(match[1]);
    const table = code < 0 ? 'protocol' : 'domain';
    const named = [...match[3]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!);
    rows.push({
      code,
      name: match[2]!,
      reasons: table === 'protocol' ? [match[2]!] : named,
      table,
    });
  }
  return rows;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Where two JSON values differ in shape: keys and JSON types, recursively; arrays by their first
 * item when both have one (lengths and values may differ from run to run).
 */
export function shapeDifferences(documented: unknown, actual: unknown, path = '$'): string[] {
  const documentedKind = kindOf(documented);
  const actualKind = kindOf(actual);
  if (documentedKind !== actualKind) {
    return [`${path}: documented ${documentedKind}, the node answered ${actualKind}`];
  }
  if (documentedKind === 'array') {
    const [first] = documented as unknown[];
    const [actualFirst] = actual as unknown[];
    if (first === undefined || actualFirst === undefined) return [];
    return shapeDifferences(first, actualFirst, `${path}[0]`);
  }
  if (documentedKind !== 'object') return [];
  const documentedObject = documented as Record<string, unknown>;
  const actualObject = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of Object.keys(documentedObject)) {
    if (!(key in actualObject)) differences.push(`${path}.${key}: documented, no longer answered`);
  }
  for (const key of Object.keys(actualObject)) {
    if (!(key in documentedObject)) differences.push(`${path}.${key}: answered, not documented`);
    else
      differences.push(
        ...shapeDifferences(documentedObject[key], actualObject[key], `${path}.${key}`),
      );
  }
  return differences;
}
