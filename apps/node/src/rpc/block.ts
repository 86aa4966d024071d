import type { Handlers } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

export function blockHandlers(
  node: NodeContext,
): Pick<Handlers, 'getBlockCount' | 'getBlockInfo' | 'blockSyncing'> {
  return {
    getBlockCount() {
      return node.chain.blockCount();
    },

    getBlockInfo({ block }) {
      return node.chain.blockInfo(block);
    },

    blockSyncing() {
      const currentBlock = node.chain.blockCount() - 1;
      return {
        startingBlock: node.startingBlock,
        currentBlock,
        highestBlock: Math.max(currentBlock, node.highestKnownBlock()),
      };
    },
  };
}
