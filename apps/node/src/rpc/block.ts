import { hexToBytes } from '@chain/crypto';
import type { GroupHandlers } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

export function blockHandlers(node: NodeContext): GroupHandlers<'block'> {
  return {
    getBlockCount() {
      return node.chain.blockCount();
    },

    getBlockInfo({ block }) {
      return node.chain.blockInfo(block);
    },

    getBlockByHash({ hash }) {
      return node.chain.blockInfoByHash(hexToBytes(hash));
    },

    /**
     * From the peer-to-peer node's range sync: `startingBlock` is the head when the latest sync
     * began (or when networking started), `currentBlock` the head, `highestBlock` the highest head of
     * this node and its peers (equal to currentBlock once synced).
     */
    blockSyncing() {
      const { startingBlock, currentBlock, highestBlock, snapshot } = node.network.syncProgress();
      return {
        startingBlock,
        currentBlock,
        highestBlock,
        historyStart: node.chain.historyStart(),
        snapshot: snapshot ?? null,
      };
    },
  };
}
