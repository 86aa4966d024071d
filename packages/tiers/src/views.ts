import { ChainError } from '@chain/crypto';
import type { Chain } from '@chain/ledger';
import type { NodePart, ParticipationEntry } from '@chain/spec';
import { participationNotFound, participationRule } from './errors';
import { parseNodeCode } from './node-code';
import {
  accountKey,
  listEntryState,
  type NodeTree,
  type Participant,
  participantSpace,
  roleOf,
  treeSpace,
  walletIndexSpace,
} from './state';

/** getNodePart's inner result (the RPC layer nests it): @chain/spec's `NodePart`. */
export type NodePartView = NodePart;

/** nodeStepMDList / nodeStepBTList entry: @chain/spec's `ParticipationEntry`. */
export type ParticipationEntryView = ParticipationEntry;

function addressOf(chain: Chain, account: number): string {
  return chain.accountByNumber(account)?.address ?? `#${account}`;
}

function participant(chain: Chain, account: number): Participant | undefined {
  return chain.stateEntry(participantSpace, accountKey(account));
}

function accountNumber(chain: Chain, wallet: string, param: string): number | undefined {
  try {
    return chain.accountByAddress(wallet)?.number;
  } catch (error) {
    throw error instanceof ChainError ? error.withParam(param) : error;
  }
}

/**
 * The committed participation of a node wallet, or of the miner or mine wallet serving one
 * (NOT_PARTICIPATING, 1010, otherwise).
 */
export function nodePart(chain: Chain, wallet: string): NodePartView {
  const account = accountNumber(chain, wallet, 'wallet');
  const owner =
    account === undefined
      ? undefined
      : participant(chain, account) !== undefined
        ? account
        : chain.stateEntry(walletIndexSpace, accountKey(account));
  const found = owner === undefined ? undefined : participant(chain, owner);
  const tree = found === undefined ? undefined : chain.stateEntry(treeSpace, found.code);
  if (found === undefined || tree === undefined) {
    throw participationNotFound(
      'NOT_PARTICIPATING',
      'this wallet neither participates nor serves a participation',
      'wallet',
    );
  }
  return {
    nodeIndex: found.nodeIndex,
    penalty: tree.penalty,
    nodeWallet: addressOf(chain, found.account),
    minerWallet: addressOf(chain, found.miner),
    state: found.state,
    startTimestamp: found.startTimestamp,
    lockTime: found.endHeight,
    code: found.code,
  };
}

function requireTree(chain: Chain, code: string): NodeTree {
  const tree = chain.stateEntry(treeSpace, parseNodeCode(code));
  if (tree === undefined) {
    throw participationNotFound('UNKNOWN_CODE', `no TOP node has the node code ${code}`, 'code');
  }
  return tree;
}

function entries(chain: Chain, parent: Participant): ParticipationEntryView[] {
  return parent.children
    .map((account) => participant(chain, account))
    .filter((child): child is Participant => child !== undefined)
    .map((child) => ({
      wallet: addressOf(chain, child.account),
      amount: child.stake.toString(),
      state: listEntryState(child.state),
    }));
}

/** nodeStepMDList: the MIDDLE nodes of TOP node `wallet`, in every state. */
export function middleList(chain: Chain, code: string, wallet: string): ParticipationEntryView[] {
  const tree = requireTree(chain, code);
  if (accountNumber(chain, wallet, 'wallet') !== tree.top) {
    throw participationRule(
      'NOT_TOP_WALLET',
      "wallet must be the TOP node's wallet of this node code",
      'wallet',
    );
  }
  return entries(chain, participant(chain, tree.top)!);
}

/** nodeStepBTList: the BOTTOM nodes of MIDDLE node `wallet` under TOP node `main`. */
export function bottomList(
  chain: Chain,
  code: string,
  main: string,
  wallet: string,
): ParticipationEntryView[] {
  const tree = requireTree(chain, code);
  if (accountNumber(chain, main, 'main') !== tree.top) {
    throw participationRule(
      'WRONG_MAIN',
      "main must be the TOP node's wallet of this node code",
      'main',
    );
  }
  const account = accountNumber(chain, wallet, 'wallet');
  const middle = account === undefined ? undefined : participant(chain, account);
  if (middle === undefined || middle.parent !== tree.top || roleOf(middle.state) !== 'MIDDLE') {
    throw participationRule(
      'NOT_MIDDLE_WALLET',
      'wallet must be a MIDDLE node of this node code',
      'wallet',
    );
  }
  return entries(chain, middle);
}
