import type { OperationRegistry } from '@chain/ledger';
import { tiersBlockHook } from './block-hook';
import { approveBottomOperation, joinBottomOperation } from './operation/bottom';
import { cancelOperation } from './operation/cancel';
import {
  approveMiddleHardwareOperation,
  approveMiddleOperation,
  joinMiddleOperation,
  middleHardwareOperation,
} from './operation/middle';
import { joinTopOperation, startMiningOperation, topHardwareOperation } from './operation/top';
import { expirySpace, participantSpace, treeSpace, walletIndexSpace } from './state';

/**
 * Plugs participation into a ledger registry (before the chain opens): its state spaces, the ten
 * operation types and the block hook that pays rewards and ends lock periods. The hook replaces
 * the ledger's default reward (fees to the producer), which it keeps for genesis producers.
 */
export function registerTiers(registry: OperationRegistry): void {
  registry.registerSpace(participantSpace);
  registry.registerSpace(treeSpace);
  registry.registerSpace(walletIndexSpace);
  registry.registerSpace(expirySpace);
  registry.register(joinTopOperation);
  registry.register(topHardwareOperation);
  registry.register(joinMiddleOperation);
  registry.register(approveMiddleOperation);
  registry.register(middleHardwareOperation);
  registry.register(approveMiddleHardwareOperation);
  registry.register(joinBottomOperation);
  registry.register(approveBottomOperation);
  registry.register(startMiningOperation);
  registry.register(cancelOperation);
  registry.registerBlockHook(tiersBlockHook);
}
