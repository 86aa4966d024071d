/**
 * Result shapes of the JSON-RPC methods, with exactly the field names of SPEC.md "Resources and their
 * fields". Amounts are decimal strings of base units; wallet and token addresses are strings.
 */

/** One sender of an operation. */
export interface OperationSender {
  account: string;
  /** Hex, empty when there is no payload. */
  payload: string;
  payload_type: number;
  /** Present in H/W-check results. */
  amount?: string;
}

/** One receiver of an operation (none for an activation). */
export interface OperationReceiver {
  account: string;
  /** Present in H/W-check results. */
  amount?: string;
}

/** The operation object returned by every operation-producing method. */
export interface OperationObject {
  /** Block number; 0 while pending. */
  block: number;
  /** Unix timestamp (seconds). */
  time: number;
  /** Position inside the block. */
  opblock: number;
  /** null while pending. */
  maturation: number | null;
  optype: number;
  subtype: number;
  nopsp: number;
  niopsp: number;
  /** Fee paid, decimal integer of base units. */
  oprice: string;
  /** Act price in force at inclusion, decimal integer of base units. */
  ioprice: string;
  /** Wallet address of the signer. */
  signer_account: string;
  n_operation: number;
  /** Base units. */
  amount: string;
  senders: OperationSender[];
  receivers: OperationReceiver[];
  /** Human-readable; for participation steps it ends with the node code. */
  optxt: string;
  /** 64 hex characters. */
  ophash: string;
}

/** createToken: the operation object with the token address, without the transfer-only fields. */
export interface CreateTokenResult
  extends Omit<
    OperationObject,
    'subtype' | 'niopsp' | 'ioprice' | 'senders' | 'receivers' | 'amount'
  > {
  /** Token address. */
  token: string;
}

/** nodeStep2, nodeStep4_1: the operation object with the machine's hardware description. */
export interface HardwareCheckResult extends OperationObject {
  CPU: string;
  RAM: string;
  GPU: string;
  DISK: string;
}

/** rawSendTo: a signed, unsent raw operation. */
export interface RawSendResult {
  amount: string;
  fee: string;
  /** Hex. */
  rawoperation: string;
}

/** One rejected operation of excuteRaw. */
export interface ExecuteRawFailure {
  valid: false;
  /** Why the operation was refused. */
  errors: string;
}

/** One accepted operation of excuteRaw (carries its ophash). */
export type ExecuteRawSuccess = OperationObject & { valid?: true };

export type ExecuteRawEntry = ExecuteRawSuccess | ExecuteRawFailure;

/** excuteRaw: one entry for a blob of one operation, else one entry per operation in order. */
export type ExecuteRawResult = ExecuteRawEntry | ExecuteRawEntry[];

/** decodeOpHash item. */
export interface DecodedOpHash {
  block: number;
  account: number;
  n_operation: number;
  /** Operation digest, hex. */
  mdhash: string;
  /** The same digest under the key the spec's example uses. */
  ophash: string;
}

/** getWalletInfo, items of getKeyStoreInfo. */
export interface WalletInfo {
  account: number;
  updated_active: number;
  updated_passive: number;
  n_operation: number;
  balance: string;
  wallet: string;
  volume_lock: string;
  volume_timelock: string;
  /** `token address` is a wallet address that is a token's (told by the node from the token state). */
  state: 'normal wallet' | 'inactive wallet' | 'unknown wallet' | 'token address';
  /**
   * Extension: the n_operation after this wallet's pending operations too (equal to `n_operation`
   * when none wait): an offline signer signs its next operation with this + 1, back to back.
   */
  n_operation_pending?: number;
}

/** infoToken. */
export interface TokenInfo {
  totalHolder: number;
  advanced: boolean;
  /** Enclosed in single quote characters. */
  symbol: string;
  /** Enclosed in single quote characters. */
  name: string;
  /** Enclosed in single quote characters. */
  summary: string;
  issuer: string;
  owner: string;
  decimal: number;
  /** Decimal number with a fractional part. */
  totalAmount: string;
}

/** One holder of a token. */
export interface TokenHolder {
  transfer: boolean;
  /** Base units. */
  balance: string;
  wallet: string;
  volumeLock: string;
  volumeTimeLock: string;
}

/** holderToken. */
export interface TokenHolders {
  transfer: boolean;
  advanced: boolean;
  totalHolder: number;
  holder: TokenHolder[];
  /** Extension: more holders follow this page (ask again with `after` = its last wallet). */
  more: boolean;
}

/** A mined operation in a history page: the operation object with its confirmations. */
export type HistoryOperation = OperationObject & {
  /** Extension: blocks from the operation's block to the head, both counted (1 = in the head). */
  confirmations: number;
};

/** getWalletOperations, getTokenOperations (extensions): one page of a history. */
export interface OperationsPage {
  /** Newest first, or oldest first when read `fromBlock` on. */
  operations: HistoryOperation[];
  /** Pass as `cursor` for the next page (same direction); null on the last page. */
  cursor: string | null;
  /**
   * The lowest block from which this node's history index is complete: a node restored from a
   * snapshot, or a data directory older than the index, lists nothing below it.
   */
  indexFrom: number;
}

/** One token of getWalletTokens (extension): the wallet's balance in the token's base units. */
export interface WalletTokenBalance {
  /** Token address. */
  token: string;
  /** Enclosed in single quote characters, as infoToken shows it. */
  symbol: string;
  decimal: number;
  /** Base units (decimal integer); `balance / 10^decimal` tokens. */
  balance: string;
  volumeLock: string;
  volumeTimeLock: string;
  transfer: boolean;
}

/** getWalletTokens (extension). */
export interface WalletTokens {
  wallet: string;
  /** Every token the wallet holds (a balance, a lock or a disabled transfer), by token address order. */
  tokens: WalletTokenBalance[];
  /** As OperationsPage.indexFrom: tokens moved only below it are not found. */
  indexFrom: number;
}

/** getNodePart, inner result. */
export interface NodePart {
  /** Position in the tree in joining order; the TOP node is 0. */
  nodeIndex: number;
  /** The tree's penalty, percent. */
  penalty: number;
  nodeWallet: string;
  minerWallet: string;
  /** Two-letter participation state: `MN` for a mining TOP node. */
  state: string;
  /** Unix seconds of the block in which the participation began. */
  startTimestamp: number;
  /** Height of the block at which the current lock period ends (renewed on extension). */
  lockTime: number;
  /** Node participation code. */
  code: string;
}

/**
 * The nested reply of getNodePart: the outer `result` holds `{result, id, jsonrpc}`. `id` is the
 * request id as the integer the spec types it (a request whose id is not a safe integer is refused
 * with -32600).
 */
export interface NestedResult<T> {
  result: T;
  id: number;
  jsonrpc: '2.0';
}

/** nodeStepMDList, nodeStepBTList item. */
export interface ParticipationEntry {
  /** May be abbreviated. */
  wallet: string;
  amount: string;
  /** e.g. `Waiting for approval.` */
  state: string;
}

/** getBlockInfo. */
export interface BlockInfo {
  block: number;
  ver: number;
  ver_a: number;
  timestamp: string;
  nopsp: string;
  niopsp: string;
  hmr: string;
  blocksize: number;
  /** `0x` + 64 hex. */
  hash: string;
  /** `0x` + 64 hex: the previous block hash. */
  one_hash: string;
  /** `0x` + 64 hex: the operations root. */
  three_hash: string;
  /** `0x` + 64 hex: the state root. */
  four_hash: string;
  /** `0x` + hex (`0x` when empty). */
  payload: string;
  trx_fee: string;
  operations: number;
  /**
   * Extra: what the block paid out, base units: its subsidy and its fees, whoever received them
   * (absent for a block this node did not execute: below a snapshot it joined from).
   */
  reward?: string;
  /** Extra: the part of `reward` the block minted (0 for a genesis producer's block). */
  subsidy?: string;
}

/** blockSyncing. */
export interface BlockSync {
  startingBlock: number;
  currentBlock: number;
  highestBlock: number;
  /**
   * The first block this node holds: 0, or the height of the snapshot it joined from (the blocks
   * below it are refused with BEFORE_HISTORY).
   */
  historyStart: number;
  /** A snapshot join under way: its height and the state chunks fetched so far; else null. */
  snapshot: { height: number; chunks: number; chunksDone: number } | null;
}

export interface NetProtocol {
  ver: number;
  ver_a: number;
}

export interface NetStats {
  active: number;
  clients: number;
  servers: number;
  servers_t: number;
  total: number;
  tclients: number;
  tservers: number;
  breceived: number;
  bsend: number;
  ips: number;
}

export interface NodeServer {
  /** Partially masked with asterisks. */
  ip: string;
  port: number;
  lastcon: number;
  attempts: number;
}

/** A block of a reorganisation: its height and hash (as getBlockInfo's: 0x and 64 hex). */
export interface ReorganizationHead {
  block: number;
  hash: string;
}

/**
 * Extension: a reorganisation this node adopted (a peer's heavier branch replaced blocks of its
 * chain): nodeStatus's `lastreorg` and each notification of the `reorganizations` push event.
 */
export interface Reorganization {
  /** Unix seconds when the branch was adopted. */
  timestamp: number;
  /** The peer whose branch was adopted, its IP partially masked. */
  peer: string;
  /** Blocks of this chain the branch took off (old head minus fork block). */
  depth: number;
  /** Deeper than a few blocks (the node logs it at WARN; the explorer shows a banner). */
  deep: boolean;
  /** The last block the two chains shared. */
  fork_block: number;
  old_head: ReorganizationHead;
  new_head: ReorganizationHead;
}

/** nodeStatus, nodeSearch. */
export interface NodeStatus {
  ready: boolean;
  ready_s: string;
  /** e.g. `Running`. */
  status_s: string;
  port: number;
  timestamp: number;
  version: string;
  netprotocol: NetProtocol;
  blocks: number;
  /**
   * The genesis hash, 64 lowercase hex (no `0x`): what every operation signature commits to
   * (docs/wire-format.md). Not getBlockInfo(0).hash, which is block 0's header hash.
   */
  genesis: string;
  /** Extension: the network's 2-character address prefix (every address starts with it). */
  prefix: string;
  datafolder: string;
  netstats: NetStats;
  nodeservers: NodeServer[];
  /** Extension: the last reorganisation this node adopted since it started, or null. */
  lastreorg: Reorganization | null;
}

export interface ConnectionEntry {
  server: boolean;
  /** Partially masked. */
  ip: string;
  port: number;
  secs: number;
  sent: number;
  recv: number;
  appver: string;
  netver: number;
  netver_a: number;
  timediff: number;
}

/** getConnection. */
export interface Connections {
  connection: ConnectionEntry[];
}

export interface BlacklistEntry {
  /** May be masked. */
  ip: string;
  port: number;
  /** Date and time. */
  LastConnection: string;
  /** May carry `ERRCODE:<n> ERROR:<text>`. */
  reason: string;
}

/** addBlacklist, getBlacklist. */
export interface Blacklist {
  blacklist: BlacklistEntry[];
  total: number;
}

/** signMessage output, verifyMessage input. */
export interface SignedMessage {
  wallet: string;
  /** The original message. */
  msg: string;
  /** PascalCoin-encoded public key (140 hex). */
  enc: string;
  /** 65-byte recoverable signature (recovery id || r || s), hex. */
  sig: string;
  version: string | number;
}

/** A key file made elsewhere, waiting for its passphrase (walletRefresh details). */
export interface UnresolvedKeyFile {
  file: string;
  /** The Ethereum-style address the file gives, null when it gives none. */
  eth_address: string | null;
}

/** A file in the key directory that holds no usable key (walletRefresh details). */
export interface FailedKeyFile {
  file: string;
  reason: string;
}

/** walletRefresh with `details: true`. */
export interface WalletRefreshDetails {
  /** Wallets usable after the rescan (getKeyStoreCount). */
  loaded: number;
  /**
   * Key files made elsewhere, waiting for their passphrase: unlockWallet with `eth_address` (or
   * the chain address) and the passphrase makes each a wallet.
   */
  unresolved: UnresolvedKeyFile[];
  /** Files that could not be loaded, and why. */
  failed: FailedKeyFile[];
}

/** rpcCallStats item; the last one has method `TOTAL`. */
export interface CallStat {
  method: string;
  calls: number;
  /** Total seconds, 6 decimals. */
  seconds: string;
  /** Average seconds per call, 6 decimals. */
  secs_average: string;
}

/** Traffic of one message kind in one direction. */
export interface IpTraffic {
  count: number;
  datasize: number;
  /** [updated_ts, datasize] of the last message. */
  last: number[];
}

/** nodeIPStats item. */
export interface IpStats {
  ip: string;
  values: {
    /** Message-kind name -> direction name (e.g. `Autosend`) -> traffic. */
    optype: Record<string, Record<string, IpTraffic>>;
    stats: { updated_ts: number };
  };
}

/** newWallet, activeWallet. */
export interface WalletAddressResult {
  wallet: string;
}

/** activeWallet: the spec's `wallet`, and the activation operation's ophash (extra field). */
export interface ActivationResult extends WalletAddressResult {
  /** The activation's ophash while pending (block 0): findOperation follows it into its block. */
  ophash: string;
}

/** dumpPrivateKey. */
export interface DumpPrivateKeyResult {
  status: boolean;
  /** Encoded private key, hex. */
  priv: string;
}

/** inputPrivateKey. */
export interface InputPrivateKeyResult {
  status: boolean;
  wallet: string;
}

/** getProtocolVersion. */
export interface ProtocolVersion {
  netprotocol: NetProtocol;
}

/** getNodeVersion. */
export interface NodeVersion {
  version: string;
}

/** A JSON Schema (draft 7), as the OpenRPC document holds them. */
export type JsonSchema = { [key: string]: unknown };

/** One param or result of an OpenRPC method (a content descriptor). */
export interface OpenRpcContentDescriptor {
  name: string;
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/** One error a method can answer, with its stable code. */
export interface OpenRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One example call: params by name and, where known, the result. */
export interface OpenRpcExample {
  name: string;
  params: { name: string; value: unknown }[];
  result?: { name: string; value: unknown };
}

export interface OpenRpcMethod {
  name: string;
  summary: string;
  description?: string;
  tags: { name: string }[];
  paramStructure: 'by-name' | 'by-position' | 'either';
  params: OpenRpcContentDescriptor[];
  result: OpenRpcContentDescriptor;
  errors: OpenRpcError[];
  examples: OpenRpcExample[];
}

/** rpc.discover: an OpenRPC 1.2 document (https://spec.open-rpc.org). */
export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: OpenRpcMethod[];
  components: { schemas: Record<string, JsonSchema> };
}
