/**
 * Offline signing in the SDK: @chain/offline, bundled in (the SDK stays free of runtime
 * dependencies and browser-safe), and the one call that reads a wallet's public inputs from a node.
 * The byte format is docs/wire-format.md.
 */
import { NEW_ACCOUNT, type SigningContext } from '@chain/offline';
import type { ChainClient } from './client.js';

export {
  type ActivationInput,
  type AdminTokenInput,
  type AdminTokenMethod,
  attachSignature,
  type BlockchainStartInput,
  type BytesInput,
  type CreateTokenInput,
  encodeRaw,
  type HardwareDescription,
  NEW_ACCOUNT,
  type NodeCancelInput,
  type NodeStep1Input,
  type NodeStep2Input,
  type NodeStep3_1Input,
  type NodeStep4_1Input,
  type NodeStep5_1Input,
  type NodeStep5_2Input,
  nodeCode,
  OfflineError,
  OPERATION_KINDS,
  type OperationInput,
  type OperationKind,
  type OperationSummary,
  type PreparedOperation,
  prepareOperation,
  type SendTokenInput,
  type SignedOperation,
  type SigningContext,
  signMineConsent,
  signOperation,
  signOperations,
  type TopDecisionInput,
  type TransferInput,
} from '@chain/offline';

/**
 * The public inputs for signing as `wallet`: the genesis hash (nodeStatus), its account number and
 * next n_operation (getWalletInfo) and the act price as the fee (getActPrice). An address not on
 * chain yet can only sign its activation: NEW_ACCOUNT, n_operation 1, fee 0.
 */
export async function signingContextOf(
  client: ChainClient,
  wallet: string,
): Promise<SigningContext> {
  const [status, info, actPrice] = await Promise.all([
    client.network.nodeStatus(),
    client.wallet.getWalletInfo({ wallet }),
    client.operations.getActPrice(),
  ]);
  const prefix = wallet.slice(0, 2);
  return info.account < 0
    ? { genesis: status.genesis, prefix, account: NEW_ACCOUNT, nOperation: 1, fee: 0n }
    : {
        genesis: status.genesis,
        prefix,
        account: info.account,
        nOperation: info.n_operation + 1,
        fee: BigInt(actPrice),
      };
}
