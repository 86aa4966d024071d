import type { AddressReservation, OperationRegistry, OperationType } from '@chain/ledger';
import { adminTokenOperations } from './operation/admin-token';
import { createTokenOperation } from './operation/create-token';
import { sendTokenOperation } from './operation/send-token';
import { tokenAddressStateKey } from './read';
import { holderSpace, tokenKey, tokenSpace } from './state';

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
  registry.registerAddressReservation(tokenAddresses);
}

/** A token's address has no key: native coins sent there could never move again. */
const tokenAddresses: AddressReservation = {
  reserved(ctx, hash160) {
    if (ctx.get(tokenSpace, tokenKey(hash160)) === undefined) return undefined;
    return {
      reason: 'RECEIVER_IS_TOKEN',
      message: 'the address is a token address, which has no key: native coins sent there are lost',
    };
  },
  stateKeys(hash160, keys) {
    const [space, key] = tokenAddressStateKey(hash160);
    keys.spaces.push([space.name, key]);
  },
};
