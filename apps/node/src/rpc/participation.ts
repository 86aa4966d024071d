import { COIN_DECIMALS, decodeAddress, parseUnits } from '@chain/crypto';
import type { OperationObject } from '@chain/ledger';
import type { CallContext, GroupHandlers, HandlerResultOf } from '@chain/rpc-jayson';
import {
  bottomList,
  describeHardware,
  HARDWARE_FIELDS,
  middleList,
  nodePart,
  type ParticipationBodies,
  type ParticipationStep,
  parseNodeCode,
  parseSubNodes,
  participationRequest,
  signMineConsent,
} from '@chain/tiers';
import type { NodeContext } from './context';
import { keyFromStore, submitSigned, usingKey, wallet } from './keys';

type HardwareCheckResult = HandlerResultOf<'nodeStep2'>;

/** An H/W check's operation object: its type's presentation adds CPU, RAM, GPU and DISK. */
function withHardware(op: OperationObject): HardwareCheckResult {
  for (const field of HARDWARE_FIELDS) {
    if (typeof op[field] !== 'string') throw new Error(`H/W check result without ${field}`);
  }
  return op as OperationObject & HardwareCheckResult;
}

/**
 * The Participating node group. Each step signs an operation with the key of the wallet whose
 * passphrase the request carries (the participant, or the confirmer for approvals); the rules live
 * in @chain/tiers and run when the operation enters the mempool. H/W checks describe this machine
 * at request time and carry the description in the operation.
 */
export function participationHandlers(node: NodeContext): GroupHandlers<'participation'> {
  /** A wallet param: checked, canonical, and its address hash for the operation body. */
  const walletParam = (address: string, param: string) => {
    const canonical = wallet(node, address, param);
    return { address: canonical, hash160: decodeAddress(canonical, node.chain.prefix).hash160 };
  };
  const stake = (amount: string) => parseUnits(amount, COIN_DECIMALS, 'amount');

  /**
   * Signs step `step` with the key of `signer` (named by request param `signerParam`). The body may
   * be made once the key is known to be there (H/W checks describe the machine only then).
   */
  async function submit<Step extends ParticipationStep>(
    caller: CallContext,
    step: Step,
    signer: string,
    signerParam: string,
    passphrase: string,
    body: ParticipationBodies[Step] | (() => Promise<ParticipationBodies[Step]>),
  ): Promise<OperationObject> {
    const privateKey = await keyFromStore(
      node,
      signer,
      passphrase,
      { wallet: signerParam, passphrase: 'passphrase' },
      caller,
    );
    return usingKey(privateKey, async () => {
      const typed = typeof body === 'function' ? await body() : body;
      const request = participationRequest(step, { signer, privateKey }, typed);
      return submitSigned(node, request, signerParam);
    });
  }

  /** A TOP node's decision on a MIDDLE node: on its joining (nodeStep3_2), on its H/W check (4_2). */
  function topDecision(
    caller: CallContext,
    step: 'nodeStep3_2' | 'nodeStep4_2',
    params: {
      code: string;
      confirmer: string;
      target: string;
      select: boolean;
      passphrase: string;
    },
  ): Promise<OperationObject> {
    const top = walletParam(params.confirmer, 'confirmer');
    const body = {
      code: parseNodeCode(params.code),
      target: walletParam(params.target, 'target').hash160,
      select: params.select,
    };
    return submit(caller, step, top.address, 'confirmer', params.passphrase, body);
  }

  return {
    getNodePart(params) {
      return nodePart(node.chain, wallet(node, params.wallet, 'wallet'));
    },

    nodeStep1(params, caller) {
      const participant = walletParam(params.wallet, 'wallet');
      const body = {
        stake: stake(params.amount),
        miner: walletParam(params.miner, 'miner').hash160,
        penalty: params.penalty,
        extension: params.extension,
      };
      return submit(caller, 'nodeStep1', participant.address, 'wallet', params.passphrase, body);
    },

    async nodeStep2(params, caller) {
      const top = walletParam(params.wallet, 'wallet');
      const code = parseNodeCode(params.code);
      const op = await submit(
        caller,
        'nodeStep2',
        top.address,
        'wallet',
        params.passphrase,
        async () => ({
          code,
          hardware: await describeHardware(),
        }),
      );
      return withHardware(op);
    },

    nodeStepMDList(params) {
      return middleList(node.chain, params.code, wallet(node, params.wallet, 'wallet'));
    },

    nodeStep3_1(params, caller) {
      const middle = walletParam(params.wallet, 'wallet');
      const body = {
        code: parseNodeCode(params.code),
        stake: stake(params.amount),
        miner: walletParam(params.miner, 'miner').hash160,
        confirmer: walletParam(params.confirmer, 'confirmer').hash160,
        extension: params.extension,
      };
      return submit(caller, 'nodeStep3_1', middle.address, 'wallet', params.passphrase, body);
    },

    nodeStep3_2: (params, caller) => topDecision(caller, 'nodeStep3_2', params),

    async nodeStep4_1(params, caller) {
      const middle = walletParam(params.wallet, 'wallet');
      const code = parseNodeCode(params.code);
      const confirmer = walletParam(params.confirmer, 'confirmer').hash160;
      const op = await submit(
        caller,
        'nodeStep4_1',
        middle.address,
        'wallet',
        params.passphrase,
        async () => ({
          code,
          confirmer,
          hardware: await describeHardware(),
        }),
      );
      return withHardware(op);
    },

    nodeStep4_2: (params, caller) => topDecision(caller, 'nodeStep4_2', params),

    nodeStepBTList(params) {
      return bottomList(
        node.chain,
        params.code,
        wallet(node, params.main, 'main'),
        wallet(node, params.wallet, 'wallet'),
      );
    },

    nodeStep5_1(params, caller) {
      const bottom = walletParam(params.wallet, 'wallet');
      const body = {
        code: parseNodeCode(params.code),
        stake: stake(params.amount),
        miner: walletParam(params.miner, 'miner').hash160,
        main: walletParam(params.main, 'main').hash160,
        confirmer: walletParam(params.confirmer, 'confirmer').hash160,
        extension: params.extension,
      };
      return submit(caller, 'nodeStep5_1', bottom.address, 'wallet', params.passphrase, body);
    },

    nodeStep5_2(params, caller) {
      const middle = walletParam(params.confirmer, 'confirmer');
      const body = {
        code: parseNodeCode(params.code),
        main: walletParam(params.main, 'main').hash160,
        target: walletParam(params.target, 'target').hash160,
        select: params.select,
      };
      return submit(caller, 'nodeStep5_2', middle.address, 'confirmer', params.passphrase, body);
    },

    /**
     * Starts mining: the mine wallet's key (unlocked with `minepass`) signs its consent into the
     * operation and joins this node's producer keys, so the block producer signs with it in its
     * turn once the operation is mined. The key is kept in memory only: after a restart,
     * unlockWallet of the mine wallet loads it again (see producer-wallets.ts).
     */
    async blockchainStart(params, caller) {
      const top = walletParam(params.wallet, 'wallet');
      const mine = walletParam(params.mine, 'mine');
      const share = walletParam(params.share, 'share');
      const code = parseNodeCode(params.code);
      parseSubNodes(params.nodes);
      const mineKey = await keyFromStore(
        node,
        mine.address,
        params.minepass,
        { wallet: 'mine', passphrase: 'minepass' },
        caller,
      );
      try {
        const op = await submit(
          caller,
          'blockchainStart',
          top.address,
          'wallet',
          params.passphrase,
          {
            code,
            mine: mine.hash160,
            share: share.hash160,
            nodes: params.nodes,
            mineConsent: signMineConsent(node.chain.genesisHash, code, mineKey),
          },
        );
        node.producerKeys.add(mine.address, mineKey);
        node.log.info({ code, mine: mine.address }, 'mine wallet added to the block producer keys');
        return op;
      } finally {
        mineKey.fill(0);
      }
    },

    nodeCancel(params, caller) {
      const participant = walletParam(params.wallet, 'wallet');
      const body = { code: parseNodeCode(params.code) };
      return submit(caller, 'nodeCancel', participant.address, 'wallet', params.passphrase, body);
    },
  };
}
