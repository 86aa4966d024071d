import { bytesToHex, hexToBytes } from '@chain/crypto';
import { ByteReader, ByteWriter, DecodeError, type StateSpace } from '@chain/ledger';
import { NODE_CODE_BYTES } from './operation/codec';

/** "None" in account fields (account numbers stay below 2^32 - 1). */
export const NO_ACCOUNT = 0xffffffff;

export type Role = 'TOP' | 'MIDDLE' | 'BOTTOM';

/**
 * Where a participant stands in the procedure; the two letters are what getNodePart shows.
 *
 * | state | role   | meaning                                                   | next step            |
 * | ----- | ------ | --------------------------------------------------------- | -------------------- |
 * | TH    | TOP    | joined (nodeStep1), its H/W check is due                  | nodeStep2            |
 * | TR    | TOP    | H/W checked, ready: takes MIDDLE requests, may start      | blockchainStart      |
 * | MN    | TOP    | mining: its mine wallet is a block producer               |                      |
 * | MW    | MIDDLE | asked to join (nodeStep3_1), waiting for the TOP          | nodeStep3_2          |
 * | MH    | MIDDLE | approved, its H/W check is due                            | nodeStep4_1          |
 * | MV    | MIDDLE | H/W checked, waiting for the TOP to approve its H/W       | nodeStep4_2          |
 * | MA    | MIDDLE | participating: earns rewards, approves BOTTOM nodes       |                      |
 * | BW    | BOTTOM | asked to join (nodeStep5_1), waiting for its MIDDLE       | nodeStep5_2          |
 * | BA    | BOTTOM | participating: earns rewards                              |                      |
 *
 * A rejection (select false), a cancellation or an expiry ends a participation: its record goes.
 */
export type NodeState = 'TH' | 'TR' | 'MN' | 'MW' | 'MH' | 'MV' | 'MA' | 'BW' | 'BA';

const STATES: readonly NodeState[] = ['TH', 'TR', 'MN', 'MW', 'MH', 'MV', 'MA', 'BW', 'BA'];

export function roleOf(state: NodeState): Role {
  if (state === 'TH' || state === 'TR' || state === 'MN') return 'TOP';
  if (state === 'BW' || state === 'BA') return 'BOTTOM';
  return 'MIDDLE';
}

/** Participants that count: they earn rewards and receive penalty shares. */
export function isActive(state: NodeState): boolean {
  return state === 'MA' || state === 'BA' || roleOf(state) === 'TOP';
}

/** The `state` text of a nodeStepMDList / nodeStepBTList entry. */
export const LIST_ENTRY_STATES = {
  waiting: 'Waiting for approval.',
  hardwareDue: 'Waiting for H/W check.',
  hardwareReview: 'Waiting for H/W approval.',
  participating: 'Participating.',
} as const;

export function listEntryState(state: NodeState): string {
  switch (state) {
    case 'MW':
    case 'BW':
      return LIST_ENTRY_STATES.waiting;
    case 'MH':
      return LIST_ENTRY_STATES.hardwareDue;
    case 'MV':
      return LIST_ENTRY_STATES.hardwareReview;
    default:
      return LIST_ENTRY_STATES.participating;
  }
}

/** One wallet's participation (key: the wallet's account number). */
export interface Participant {
  /** The node code of the TOP node whose tree this belongs to (16 hex digits). */
  code: string;
  state: NodeState;
  /** The participating (node) wallet: holds the stake. */
  account: number;
  /** Receives this participant's rewards. */
  miner: number;
  /** The confirmer: the TOP of a MIDDLE, the MIDDLE of a BOTTOM; NO_ACCOUNT for a TOP. */
  parent: number;
  /** Locked in the node wallet's volume_lock while participating. */
  stake: bigint;
  /** Renewed at the end of each lock period instead of ending. */
  extension: boolean;
  /** Position in the tree, in joining order (the TOP is 0). */
  nodeIndex: number;
  startHeight: number;
  startTimestamp: number;
  /** Height of the block at which the current lock period ends. */
  endHeight: number;
  /** Sub-nodes (MIDDLE of a TOP, BOTTOM of a MIDDLE) in any state, ascending account numbers. */
  children: number[];
}

/** A TOP node's tree (key: its node code). */
export interface NodeTree {
  top: number;
  /** Percent of the stake kept from a participant of this tree who cancels. */
  penalty: number;
  nextIndex: number;
  /** The block-producing wallet once started (blockchainStart), else NO_ACCOUNT. */
  mine: number;
  /** The share wallet once started, else NO_ACCOUNT. */
  share: number;
  /** Sub-node IPs recorded by blockchainStart. */
  nodes: string[];
}

export { NODE_CODE_BYTES };

function readFlag(r: ByteReader, what: string): boolean {
  const value = r.u8(what);
  if (value > 1) throw new DecodeError('BAD_FLAG', `${what} must be 0 or 1, got ${value}`);
  return value === 1;
}

function readState(r: ByteReader): NodeState {
  const index = r.u8('participation state');
  const state = STATES[index];
  if (state === undefined)
    throw new DecodeError('BAD_STATE', `unknown participation state ${index}`);
  return state;
}

function writeAccounts(w: ByteWriter, accounts: readonly number[]): void {
  w.u32(accounts.length);
  for (const account of accounts) w.u32(account);
}

function readAccounts(r: ByteReader, what: string): number[] {
  const count = r.u32(`${what} count`);
  if (count * 4 > r.remaining) throw new DecodeError('BAD_COUNT', `${what} count is too large`);
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(r.u32(what));
  return out;
}

export const participantSpace: StateSpace<Participant> = {
  name: 'tiers.participant',
  encode(p) {
    const w = new ByteWriter(64 + p.children.length * 4);
    w.bytes(hexToBytes(p.code)).u8(STATES.indexOf(p.state));
    w.u32(p.account)
      .u32(p.miner)
      .u32(p.parent)
      .amount(p.stake)
      .u8(p.extension ? 1 : 0);
    w.u32(p.nodeIndex).u32(p.startHeight).u32(p.startTimestamp).u32(p.endHeight);
    writeAccounts(w, p.children);
    return w.finish();
  },
  decode(bytes) {
    const r = new ByteReader(bytes);
    const participant: Participant = {
      code: bytesToHex(r.bytesView(NODE_CODE_BYTES, 'node code')),
      state: readState(r),
      account: r.u32('account'),
      miner: r.u32('miner'),
      parent: r.u32('parent'),
      stake: r.amount('stake'),
      extension: readFlag(r, 'extension'),
      nodeIndex: r.u32('node index'),
      startHeight: r.u32('start height'),
      startTimestamp: r.u32('start timestamp'),
      endHeight: r.u32('end height'),
      children: readAccounts(r, 'child'),
    };
    r.end('participant');
    return participant;
  },
  clone: (p) => ({ ...p, children: [...p.children] }),
};

export const treeSpace: StateSpace<NodeTree> = {
  name: 'tiers.tree',
  encode(t) {
    const w = new ByteWriter(32 + t.nodes.reduce((n, ip) => n + 2 + ip.length, 0));
    w.u32(t.top).u8(t.penalty).u32(t.nextIndex).u32(t.mine).u32(t.share);
    w.u16(t.nodes.length);
    for (const ip of t.nodes) w.string16(ip);
    return w.finish();
  },
  decode(bytes) {
    const r = new ByteReader(bytes);
    const tree: NodeTree = {
      top: r.u32('top'),
      penalty: r.u8('penalty'),
      nextIndex: r.u32('next index'),
      mine: r.u32('mine'),
      share: r.u32('share'),
      nodes: [],
    };
    const count = r.u16('node count');
    for (let i = 0; i < count; i++) tree.nodes.push(r.string16('node'));
    r.end('node tree');
    return tree;
  },
  clone: (t) => ({ ...t, nodes: [...t.nodes] }),
};

/**
 * Miner and mine wallets, by account number, to the participant they serve (so getNodePart finds a
 * participation by its mined wallet and the block hook finds the TOP node of a producer).
 */
export const walletIndexSpace: StateSpace<number> = {
  name: 'tiers.wallet',
  encode: (account) => new ByteWriter(4).u32(account).finish(),
  decode(bytes) {
    const r = new ByteReader(bytes);
    const account = r.u32('participant');
    r.end('wallet index');
    return account;
  },
  clone: (account) => account,
};

/** Participants whose lock period ends at a height (key: the height); stale entries are skipped. */
export const expirySpace: StateSpace<number[]> = {
  name: 'tiers.expiry',
  encode(accounts) {
    const w = new ByteWriter(4 + accounts.length * 4);
    writeAccounts(w, accounts);
    return w.finish();
  },
  decode(bytes) {
    const r = new ByteReader(bytes);
    const accounts = readAccounts(r, 'expiring participant');
    r.end('expiry list');
    return accounts;
  },
  clone: (accounts) => [...accounts],
};

export const accountKey = (account: number): string => String(account);
export const heightKey = (height: number): string => String(height);
