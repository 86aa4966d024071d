import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type {
  HardwareCheckResult,
  NodePart,
  OperationObject,
  ParticipationEntry,
} from './results.js';

const operation = () => result<OperationObject>('OperationObject');
const hardwareCheck = () => result<HardwareCheckResult>('HardwareCheckResult');
const participationList = () => result<ParticipationEntry[]>('ParticipationEntry[]');

export const participationMethods = defineMethods({
  getNodePart: {
    name: 'getNodePart',
    group: 'participation',
    summary: 'Participation of a node wallet or mined wallet (nested reply).',
    params: { wallet: p.wallet() },
    result: result<NodePart>('NodePart'),
    nestedResult: true,
  },
  nodeStep1: {
    name: 'nodeStep1',
    group: 'participation',
    summary: 'Participate as a TOP node; the node code is returned in optxt.',
    params: {
      wallet: p.wallet(),
      amount: p.amount(),
      passphrase: p.string().secret(),
      miner: p.wallet(),
      penalty: p.integer({ min: 0, max: 100 }).optional(0),
      extension: p.boolean().optional(false),
    },
    result: operation(),
  },
  nodeStep2: {
    name: 'nodeStep2',
    group: 'participation',
    summary: 'H/W check of the TOP node.',
    params: { code: p.string(), wallet: p.wallet(), passphrase: p.string().secret() },
    result: hardwareCheck(),
  },
  nodeStepMDList: {
    name: 'nodeStepMDList',
    group: 'participation',
    summary: 'MIDDLE participants of a TOP node awaiting approval.',
    params: { code: p.string(), wallet: p.wallet() },
    result: participationList(),
  },
  nodeStep3_1: {
    name: 'nodeStep3_1',
    group: 'participation',
    summary: 'Ask to participate as a MIDDLE node under a TOP confirmer.',
    params: {
      code: p.string(),
      wallet: p.wallet(),
      amount: p.amount(),
      passphrase: p.string().secret(),
      miner: p.wallet(),
      confirmer: p.wallet(),
      extension: p.boolean().optional(false),
    },
    result: operation(),
  },
  nodeStep3_2: {
    name: 'nodeStep3_2',
    group: 'participation',
    summary: 'The TOP node approves or rejects a MIDDLE participant.',
    params: {
      select: p.boolean(),
      code: p.string(),
      confirmer: p.wallet(),
      passphrase: p.string().secret(),
      target: p.wallet(),
    },
    result: operation(),
  },
  nodeStep4_1: {
    name: 'nodeStep4_1',
    group: 'participation',
    summary: 'H/W check of a MIDDLE node.',
    params: {
      code: p.string(),
      wallet: p.wallet(),
      passphrase: p.string().secret(),
      confirmer: p.wallet(),
    },
    result: hardwareCheck(),
  },
  nodeStep4_2: {
    name: 'nodeStep4_2',
    group: 'participation',
    summary: "The TOP node approves or rejects a MIDDLE node's H/W.",
    params: {
      select: p.boolean(),
      code: p.string(),
      confirmer: p.wallet(),
      passphrase: p.string().secret(),
      target: p.wallet(),
    },
    result: operation(),
  },
  nodeStepBTList: {
    name: 'nodeStepBTList',
    group: 'participation',
    summary: 'BOTTOM participants of a MIDDLE node awaiting approval.',
    params: { code: p.string(), main: p.wallet(), wallet: p.wallet() },
    result: participationList(),
  },
  nodeStep5_1: {
    name: 'nodeStep5_1',
    group: 'participation',
    summary: 'Ask to participate as a BOTTOM node under a MIDDLE confirmer and a TOP main wallet.',
    params: {
      code: p.string(),
      wallet: p.wallet(),
      amount: p.amount(),
      passphrase: p.string().secret(),
      miner: p.wallet(),
      main: p.wallet(),
      confirmer: p.wallet(),
      extension: p.boolean().optional(false),
    },
    result: operation(),
  },
  nodeStep5_2: {
    name: 'nodeStep5_2',
    group: 'participation',
    summary: 'The MIDDLE node approves or rejects a BOTTOM participant.',
    params: {
      select: p.boolean(),
      code: p.string(),
      main: p.wallet(),
      confirmer: p.wallet(),
      passphrase: p.string().secret(),
      target: p.wallet(),
    },
    result: operation(),
  },
  blockchainStart: {
    name: 'blockchainStart',
    group: 'participation',
    summary: 'Start mining for a TOP node.',
    params: {
      code: p.string(),
      wallet: p.wallet(),
      passphrase: p.string().secret(),
      mine: p.wallet(),
      minepass: p.string().secret(),
      share: p.wallet(),
      nodes: p.string(),
    },
    result: operation(),
    duplicateKeys: { mine: ['mine', 'share'] },
  },
  nodeCancel: {
    name: 'nodeCancel',
    group: 'participation',
    summary: 'Cancel participation (refused while sub-nodes participate).',
    params: { code: p.string(), wallet: p.wallet(), passphrase: p.string().secret() },
    result: operation(),
  },
});
