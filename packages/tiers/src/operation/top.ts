import { isIP } from 'node:net';
import type { ByteReader, OperationType } from '@chain/ledger';
import { invalidParticipationData, participationRule } from '../errors';
import type { HardwareDescription } from '../hardware';
import { verifyMineConsent } from '../mine-consent';
import { nodeCodeOf } from '../node-code';
import { NO_ACCOUNT, type NodeTree, treeSpace } from '../state';
import { admitSigner } from './admission';
import { BodyWriter, MAX_NODES_TEXT_BYTES, readBody } from './codec';
import { PARTICIPATION_OPTYPES } from './optypes';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import {
  claimWallet,
  requireSignerIsTop,
  requireTree,
  saveParticipant,
  stepOutOfOrder,
} from './tree-rules';

/** Most sub-node IPs blockchainStart records. */
export const MAX_SUB_NODES = 64;

/** nodeStep1 (8): a wallet joins as a TOP node; its node code derives from this operation. */
export interface JoinTopBody {
  stake: bigint;
  /** Hash of the miner wallet (rewards of the TOP node go there). */
  miner: Uint8Array;
  /** Percent kept from a cancelling participant's stake, shared among the others. */
  penalty: number;
  extension: boolean;
}

export const joinTopOperation: OperationType<JoinTopBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep1,
  name: 'nodeStep1',
  encodeBody: (b) =>
    new BodyWriter()
      .amount(b.stake, 'amount')
      .wallet(b.miner, 'miner')
      .u8(b.penalty, 'penalty')
      .flag(b.extension)
      .finish(),
  decodeBody: (r: ByteReader) => ({
    stake: r.amount('stake'),
    miner: readBody.wallet(r, 'miner'),
    penalty: r.u8('penalty'),
    extension: readBody.flag(r, 'extension'),
  }),
  apply(ctx, op) {
    const { stake, miner, penalty, extension } = op.body;
    if (penalty > 100) {
      throw invalidParticipationData('BAD_PENALTY', 'penalty is a percent, 0 to 100', 'penalty');
    }
    const code = nodeCodeOf(ctx.signer, op.nOperation, ctx.hashes);
    const tree: NodeTree = {
      top: ctx.signer,
      penalty,
      nextIndex: 0,
      mine: NO_ACCOUNT,
      share: NO_ACCOUNT,
      nodes: [],
    };
    admitSigner(ctx, { role: 'TOP', code, tree, stake, miner, parent: NO_ACCOUNT, extension });
  },
  present(op, ctx) {
    const { stake, miner, penalty, extension } = op.body;
    const code = nodeCodeOf(op.signer, op.nOperation, ctx.hashes);
    const minerAddress = ctx.addressOfHash160(miner);
    return {
      amount: stake,
      senders: [signerLine(ctx)],
      receivers: [walletLine(ctx, miner)],
      optxt: withCode(
        `TOP node ${ctx.signerAddress} joins with stake ${coins(stake)}, miner ${minerAddress}, ` +
          `penalty ${penalty}%, extension ${yesNo(extension)}`,
        code,
      ),
    };
  },
};

/** nodeStep2 (9) and nodeStep4_1 (16) share the H/W part of their bodies. */
export interface TopHardwareBody {
  code: string;
  hardware: HardwareDescription;
}

/** The H/W check result's extra fields; nothing moves in an H/W check, so amounts are 0. */
export function hardwarePresentation(hardware: HardwareDescription) {
  return { CPU: hardware.CPU, RAM: hardware.RAM, GPU: hardware.GPU, DISK: hardware.DISK };
}

export const topHardwareOperation: OperationType<TopHardwareBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep2,
  name: 'nodeStep2',
  encodeBody: (b) => new BodyWriter().code(b.code).hardware(b.hardware).finish(),
  decodeBody: (r: ByteReader) => ({ code: readBody.code(r), hardware: readBody.hardware(r) }),
  apply(ctx, op) {
    const tree = requireTree(ctx, op.body.code);
    const top = requireSignerIsTop(ctx, tree, 'NOT_TOP_WALLET', 'wallet');
    if (top.state !== 'TH') {
      throw stepOutOfOrder("the TOP node's H/W check is already recorded", 'wallet');
    }
    top.state = 'TR';
    saveParticipant(ctx, top);
  },
  present(op, ctx) {
    return {
      amount: 0n,
      senders: [signerLine(ctx, 0n)],
      receivers: [{ account: ctx.signerAddress, amount: '0' }],
      optxt: withCode(`H/W check of TOP node ${ctx.signerAddress}`, op.body.code),
      extra: hardwarePresentation(op.body.hardware),
    };
  },
};

/** blockchainStart (19/1): the TOP node starts mining with its mine wallet. */
export interface StartMiningBody {
  code: string;
  mine: Uint8Array;
  share: Uint8Array;
  /** Sub-node IPs, `ip1;ip2;...` (may be empty). */
  nodes: string;
  /** The mine wallet's signature of `mineConsentHash(genesis hash, code)`. */
  mineConsent: Uint8Array;
}

/** The IPs of a `nodes` text (`ip1;ip2;...`, blanks ignored); INVALID_DATA on anything else. */
export function parseSubNodes(text: string): string[] {
  const nodes = text
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const node of nodes) {
    if (isIP(node) === 0) {
      throw invalidParticipationData(
        'BAD_NODES',
        `'${node.slice(0, 64)}' is not an IP address`,
        'nodes',
      );
    }
  }
  if (nodes.length > MAX_SUB_NODES) {
    throw invalidParticipationData('BAD_NODES', `at most ${MAX_SUB_NODES} sub-node IPs`, 'nodes');
  }
  return nodes;
}

export const startMiningOperation: OperationType<StartMiningBody> = {
  ...PARTICIPATION_OPTYPES.blockchainStart,
  name: 'blockchainStart',
  encodeBody: (b) =>
    new BodyWriter()
      .code(b.code)
      .wallet(b.mine, 'mine')
      .wallet(b.share, 'share')
      .text(b.nodes, MAX_NODES_TEXT_BYTES, 'nodes')
      .signature(b.mineConsent, 'mineConsent')
      .finish(),
  decodeBody: (r: ByteReader) => ({
    code: readBody.code(r),
    mine: readBody.wallet(r, 'mine'),
    share: readBody.wallet(r, 'share'),
    nodes: readBody.text(r, MAX_NODES_TEXT_BYTES, 'nodes'),
    mineConsent: readBody.signature(r, 'mine consent'),
  }),
  apply(ctx, op) {
    const { code } = op.body;
    const tree = requireTree(ctx, code);
    const top = requireSignerIsTop(ctx, tree, 'NOT_TOP_WALLET', 'wallet');
    if (top.state === 'MN') {
      throw participationRule('ALREADY_STARTED', 'this TOP node is already mining', 'code');
    }
    if (top.state !== 'TR') {
      throw stepOutOfOrder("the TOP node's H/W check (nodeStep2) comes first", 'wallet');
    }
    const mine = ctx.accountByHash160(op.body.mine);
    if (mine === undefined || mine.publicKey === null) {
      throw participationRule(
        'MINE_NOT_ACTIVE',
        'the mine wallet must be active on chain (its key signs blocks)',
        'mine',
      );
    }
    if (ctx.producers().includes(mine.number)) {
      throw participationRule(
        'WALLET_IN_USE',
        'the mine wallet is already a block producer',
        'mine',
      );
    }
    if (!verifyMineConsent(ctx.genesis, code, op.body.mineConsent, mine.publicKey)) {
      throw participationRule(
        'BAD_MINE_CONSENT',
        "the mine wallet's consent signature does not verify",
        'mine',
      );
    }
    claimWallet(ctx, mine.number, top.account, 'mine');
    tree.mine = mine.number;
    tree.share = ctx.coinRecipient(op.body.share, 'share').number;
    tree.nodes = parseSubNodes(op.body.nodes);
    top.state = 'MN';
    ctx.setProducer(mine.number, true);
    ctx.put(treeSpace, code, tree);
    saveParticipant(ctx, top);
  },
  present(op, ctx) {
    const { code, mine, share, nodes } = op.body;
    return {
      amount: 0n,
      senders: [signerLine(ctx)],
      receivers: [walletLine(ctx, mine), walletLine(ctx, share)],
      optxt: withCode(
        `TOP node ${ctx.signerAddress} starts mining: mine wallet ${ctx.addressOfHash160(mine)}, ` +
          `share wallet ${ctx.addressOfHash160(share)}, sub-nodes ${nodes.trim() || 'none'}`,
        code,
      ),
    };
  },
};
