export { ParticipationError, type ParticipationReason, participationBlame } from './errors';
export {
  describeHardware,
  HARDWARE_FIELDS,
  type HardwareDescription,
  MAX_HARDWARE_FIELD_BYTES,
} from './hardware';
export { mineConsentHash, signMineConsent } from './mine-consent';
export { nodeCodeOf, parseNodeCode } from './node-code';
export type { DecisionBody, JoinRequest } from './operation/admission';
export {
  approveBottomOperation,
  type BottomDecisionBody,
  type JoinBottomBody,
  joinBottomOperation,
} from './operation/bottom';
export { type CancelBody, cancelOperation } from './operation/cancel';
export { MAX_NODES_TEXT_BYTES } from './operation/codec';
export {
  approveMiddleHardwareOperation,
  approveMiddleOperation,
  type JoinMiddleBody,
  joinMiddleOperation,
  type MiddleHardwareBody,
  middleHardwareOperation,
} from './operation/middle';
export { PARTICIPATION_OPTYPES, type ParticipationStep } from './operation/optypes';
export {
  type ParticipationBodies,
  participationRequest,
} from './operation/step-requests';
export {
  type JoinTopBody,
  joinTopOperation,
  MAX_SUB_NODES,
  parseSubNodes,
  type StartMiningBody,
  startMiningOperation,
  type TopHardwareBody,
  topHardwareOperation,
} from './operation/top';
export {
  DEFAULT_TIERS_PARAMS,
  TIERS_PARAM_KEYS,
  type TiersParams,
  tiersParams,
} from './params';
export { type Claim, splitProRata } from './pro-rata';
export { registerTiers } from './register';
export { LIST_ENTRY_STATES, type NodeState, type Role } from './state';
export {
  bottomList,
  middleList,
  type NodePartView,
  nodePart,
  type ParticipationEntryView,
} from './views';
