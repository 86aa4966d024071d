import { isIP } from 'node:net';
import { pureSecp256k1 } from '@chain/crypto';
import { type Genesis, genesisHash, type OperationType } from '@chain/ledger';
import { echoed } from '@chain/spec';
import { invalidParticipationData, participationRule } from '../errors';
import { mineConsentHash } from '../mine-consent';
import { nodeCodeOf } from '../node-code';
import { NO_ACCOUNT, type NodeTree, treeSpace } from '../state';
import { admitSigner } from './admission';
import type { HardwareDescription } from './codec';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import {
  type JoinTopBody,
  joinTopCodec,
  type StartMiningBody,
  startMiningCodec,
  type TopHardwareBody,
  topHardwareCodec,
} from './step-codecs';
import { touchesWallets } from './touched-wallets';
import {
  claimWallet,
  requireSignerIsTop,
  requireTree,
  saveParticipant,
  stepOutOfOrder,
} from './tree-rules';

/** Most sub-node IPs blockchainStart records. */
export const MAX_SUB_NODES = 64;

export type { JoinTopBody, StartMiningBody, TopHardwareBody } from './step-codecs';

/** nodeStep1 (8): a wallet joins as a TOP node; its node code derives from this operation. */
export const joinTopOperation: OperationType<JoinTopBody> = {
  ...joinTopCodec,
  touches: touchesWallets('miner'),
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

/** The H/W check result's extra fields; nothing moves in an H/W check, so amounts are 0. */
export function hardwarePresentation(hardware: HardwareDescription) {
  return { CPU: hardware.CPU, RAM: hardware.RAM, GPU: hardware.GPU, DISK: hardware.DISK };
}

/** nodeStep2 (9): the TOP node's H/W check. */
export const topHardwareOperation: OperationType<TopHardwareBody> = {
  ...topHardwareCodec,
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
        `'${echoed(node)}' is not an IP address`,
        'nodes',
      );
    }
  }
  if (nodes.length > MAX_SUB_NODES) {
    throw invalidParticipationData('BAD_NODES', `at most ${MAX_SUB_NODES} sub-node IPs`, 'nodes');
  }
  return nodes;
}

const genesisHashes = new WeakMap<Genesis, Uint8Array>();

/** The mine wallet's consent (mine-consent.ts) verifies against its key on chain. */
function verifyMineConsent(
  genesis: Genesis,
  code: string,
  signature: Uint8Array,
  minePublicKey: Uint8Array,
): boolean {
  let hash = genesisHashes.get(genesis);
  if (hash === undefined) {
    hash = genesisHash(genesis);
    genesisHashes.set(genesis, hash);
  }
  return pureSecp256k1.verify(signature, mineConsentHash(hash, code), minePublicKey);
}

/** blockchainStart (19/1): the TOP node starts mining with its mine wallet. */
export const startMiningOperation: OperationType<StartMiningBody> = {
  ...startMiningCodec,
  touches: touchesWallets('mine', 'share'),
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
