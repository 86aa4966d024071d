import type { KeyStore } from '@chain/keystore';
import type { Chain } from '@chain/ledger';
import type { P2PNode } from '@chain/p2p-libp2p';
import type { Logger } from '../logger';
import type { ProducerKeys } from '../producer-keys';
import type { PushHub } from '../push/push-hub';
import type { WithdrawalReferences } from '../references/withdrawal-references';

/** What every RPC method group's handlers work with. */
export interface NodeContext {
  readonly chain: Chain;
  readonly keystore: KeyStore;
  readonly log: Logger;
  /** Block-signing keys held by this node (blockchainStart adds mine wallets). */
  readonly producerKeys: ProducerKeys;
  readonly datadir: string;
  /** The peer-to-peer node (Network group, nodeIPStats, blockSyncing). */
  readonly network: P2PNode;
  /** Push subscriptions (subscribe over WebSocket). */
  readonly push: PushHub;
  /** The client references of sendTo and sendToken (withdrawals safe to retry). */
  readonly references: WithdrawalReferences;
}
