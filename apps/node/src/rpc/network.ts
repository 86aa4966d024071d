import type { Handlers } from '@chain/rpc-jayson';
import { APP_VERSION, NET_PROTOCOL } from '../version';

/** The network methods that need no peer-to-peer layer. */
export function networkHandlers(): Pick<Handlers, 'getNodeVersion' | 'getProtocolVersion'> {
  return {
    getNodeVersion() {
      return { version: APP_VERSION };
    },

    getProtocolVersion() {
      return { netprotocol: { ...NET_PROTOCOL } };
    },
  };
}
