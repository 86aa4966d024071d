export { OfflineError } from './errors';
export type { BytesInput, SigningContext } from './inputs';
export {
  type ActivationInput,
  type AdminTokenInput,
  type AdminTokenMethod,
  type BlockchainStartInput,
  type CreateTokenInput,
  type HardwareDescription,
  type NodeCancelInput,
  type NodeStep1Input,
  type NodeStep2Input,
  type NodeStep3_1Input,
  type NodeStep4_1Input,
  type NodeStep5_1Input,
  type NodeStep5_2Input,
  OPERATION_KINDS,
  type OperationInput,
  type OperationKind,
  type SendTokenInput,
  type TopDecisionInput,
  type TransferInput,
} from './operations';
export {
  attachSignature,
  encodeRaw,
  nodeCode,
  type OperationSummary,
  type PreparedOperation,
  prepareOperation,
  type SignedOperation,
  signMineConsent,
  signOperation,
  signOperations,
} from './sign';

/** The signer field of a new address's activation (the address is not on chain yet). */
export const NEW_ACCOUNT = 0xffffffff;
