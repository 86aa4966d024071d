/**
 * `@chain/tiers/codec`: the participation operations' byte layouts, node codes and the mine
 * wallet's consent, without state or Node-only code, for offline signers and browser bundles
 * (`@chain/offline`). docs/wire-format.md describes the bytes.
 */
export { mineConsentHash, signMineConsent } from './mine-consent';
export { nodeCodeOf } from './node-code';
export {
  HARDWARE_FIELDS,
  type HardwareDescription,
  MAX_HARDWARE_FIELD_BYTES,
  MAX_NODES_TEXT_BYTES,
  NODE_CODE_BYTES,
} from './operation/codec';
export { PARTICIPATION_OPTYPES, type ParticipationStep } from './operation/optypes';
export {
  approveBottomCodec,
  approveMiddleCodec,
  approveMiddleHardwareCodec,
  type BottomDecisionBody,
  type CancelBody,
  cancelCodec,
  type DecisionBody,
  type JoinBottomBody,
  type JoinMiddleBody,
  type JoinRequest,
  type JoinTopBody,
  joinBottomCodec,
  joinMiddleCodec,
  joinTopCodec,
  type MiddleHardwareBody,
  middleHardwareCodec,
  type StartMiningBody,
  startMiningCodec,
  type TopHardwareBody,
  topHardwareCodec,
} from './operation/step-codecs';
export {
  type ParticipationBodies,
  participationRequest,
} from './operation/step-requests';
