import type { Stream } from '@libp2p/interface';
import type { Offence } from '../discipline/misbehaviour';
import type { MessageKind } from '../stats/traffic';
import type { HelloWork, TipInfo } from '../wire/messages';

// The types the sync modules share (block-sync, range-pipeline, snap-sync, history-fetch): here, so
// that none of them imports another's.

/** What the synchroniser needs to know of a connected peer. */
export interface SyncPeer {
  readonly ip: string;
  /** The peer's tip as it last said (hello, sync response). */
  readonly head: TipInfo | undefined;
  /** What catching up with it costs, as its last hello said (peers of an older version: none). */
  readonly work?: HelloWork | undefined;
  /** Unix ms until which the peer is not asked again (it failed or misled). */
  readonly syncRetryAt: number;
  openStream(protocol: string): Promise<Stream>;
  /** Its tip, as a sync response told it. */
  learnTip(tip: TipInfo): void;
  /** Not asked again before `until` (Unix ms). */
  postponeSync(until: number): void;
}

export interface SyncHooks {
  peers(): Iterable<SyncPeer>;
  misbehaved(peer: SyncPeer, offence: Offence, code: number, text: string): void;
  traffic(
    ip: string,
    kind: MessageKind,
    direction: 'Autosend' | 'Autoreceive',
    bytes: number,
  ): void;
  log(level: 'debug' | 'info' | 'warn', details: object, message: string): void;
  /** This node adopted a peer's branch (after the chain's reorganisation, before the next sync). */
  reorganized?(reorganization: Reorganization): void;
}

/** A reorganisation this node adopted: whose branch, from which head to which. */
export interface Reorganization {
  /** Unix ms when the branch was adopted. */
  at: number;
  /** IP of the peer whose branch was adopted. */
  peer: string;
  /** The last block the two chains shared. */
  forkHeight: number;
  /** Blocks of this chain the branch took off (the old head's height minus the fork's). */
  depth: number;
  oldHead: { height: number; hash: Uint8Array };
  newHead: { height: number; hash: Uint8Array };
  /** Deeper than the reorgWarnDepth option: logged at WARN. */
  deep: boolean;
}

export interface SyncProgress {
  /** Head height when the latest sync began (or when networking started). */
  startingBlock: number;
  currentBlock: number;
  /** The highest head height of this node and its peers. */
  highestBlock: number;
  syncing: boolean;
  /** A snapshot join under way (snap-sync.ts). */
  snapshot?: { height: number; chunks: number; chunksDone: number };
}
