import type { Handlers } from '@chain/rpc-jayson';
import { APP_VERSION, NET_PROTOCOL } from '../version';
import type { NodeContext } from './context';

/** The Network node group. */
export function networkHandlers(_node: NodeContext): Partial<Handlers> {
  return {
    getNodeVersion() {
      return { version: APP_VERSION };
    },

    getProtocolVersion() {
      return { netprotocol: { ...NET_PROTOCOL } };
    },
  };
}
