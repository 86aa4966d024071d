import type { Handlers } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

/** The Token group (createToken, adminToken, sendToken, holderToken, infoToken). */
export function tokenHandlers(_node: NodeContext): Partial<Handlers> {
  return {};
}
