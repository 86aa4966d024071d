import type { OperationRegistry, OperationType } from '@chain/ledger';
import { adminTokenOperations } from './operation/admin-token';
import { createTokenOperation } from './operation/create-token';
import { sendTokenOperation } from './operation/send-token';
import { holderSpace, tokenSpace } from './state';

/** createToken (6/0), sendToken (7/0) and the six adminToken methods (7/1-6). */
export const tokenOperationTypes: readonly OperationType<unknown>[] = [
  createTokenOperation as OperationType<unknown>,
  sendTokenOperation as OperationType<unknown>,
  ...(adminTokenOperations as readonly OperationType<unknown>[]),
];

/** Plugs the token state spaces and operation types into a ledger registry (before the chain opens). */
export function registerTokens(registry: OperationRegistry): void {
  registry.registerSpace(tokenSpace);
  registry.registerSpace(holderSpace);
  for (const type of tokenOperationTypes) registry.register(type);
}
