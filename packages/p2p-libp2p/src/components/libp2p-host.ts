import { bytesToHex } from '@chain/crypto';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { gossipsub } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { Connection, Libp2p, MultiaddrConnection, PrivateKey } from '@libp2p/interface';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { createLibp2p } from 'libp2p';
import type { P2PNodeOptions, ResolvedP2POptions } from '../p2p-options';
import { addressOfMultiaddr } from '../peers/address';
import { loadOrCreatePeerKey } from '../peers/peer-key';
import type { Services } from '../peers/peer-state';
import type { SocketCounters } from '../stats/traffic';
import { LIMITS } from '../wire/limits';
import type { Component } from './lifecycle';
import { grantYamuxWindowAtHalf } from './yamux-window';

/**
 * libp2p reports a listener that cannot bind as UnsupportedListenAddressesError; an operator needs
 * the plain cause (like node:net's error: code, address, port).
 */
function listenError(error: unknown, host: string, port: number): unknown {
  const message = String((error as Error)?.message ?? '');
  const code = /\b(EADDRINUSE|EADDRNOTAVAIL|EACCES)\b/.exec(message)?.[1];
  if (code === undefined) return error;
  return Object.assign(new Error(`P2P listener on ${host}:${port}: ${code}`, { cause: error }), {
    code,
    syscall: 'listen',
    address: host,
    port,
  });
}

/**
 * Gossipsub's message id under its signing policy (StrictSign: author and sequence number), read
 * from the received message without checking its signature. Given as `fastMsgIdFn`, it lets a
 * copy of a message already seen be dropped before its signature is verified: each message comes
 * from up to D mesh peers, and without it every copy cost an Ed25519 verification and a public key
 * import (a fifth of a node's CPU under load). A copy whose signature fails is not remembered by
 * it (gossipsub caches the id only once the signature was verified).
 */
export function fastMessageId(message: { from?: Uint8Array; seqno?: Uint8Array }): string {
  if (message.from === undefined || message.seqno === undefined) return '';
  return `${bytesToHex(message.from)}:${bytesToHex(message.seqno)}`;
}

/** What the host hands to the other parts (wired in p2p-components.ts). */
export interface HostHooks {
  /** Registers the request protocols' handlers on the host, before it starts. */
  register(host: Libp2p<Services>): Promise<void>;
  isBlacklisted(ip: string | undefined): boolean;
  denyInbound(maConn: MultiaddrConnection): boolean;
  upgraded(maConn: MultiaddrConnection): void;
  connectionOpen(connection: Connection): void;
  connectionClose(connection: Connection): void;
}

/** The libp2p host (a new one per start: a stopped libp2p does not start again) and its port. */
export class Libp2pHost implements Component {
  readonly name = 'host';
  readonly needs = ['stores'] as const;
  private privateKey: PrivateKey | undefined;
  private running: Libp2p<Services> | undefined;
  private stopping: Libp2p<Services> | undefined;
  private hooks: HostHooks | undefined;
  private actualPort: number;
  /** This node's peer id (the same key on every start). */
  localPeerId = '';

  constructor(
    private readonly opts: ResolvedP2POptions,
    private readonly sockets: SocketCounters,
    private readonly libp2pMetrics: P2PNodeOptions['libp2pMetrics'],
  ) {
    this.actualPort = opts.port;
  }

  wire(hooks: HostHooks): void {
    this.hooks = hooks;
  }

  /** The started host; undefined while networking is off (or going off). */
  get current(): Libp2p<Services> | undefined {
    return this.running;
  }

  /** The TCP port listened on. */
  get port(): number {
    return this.actualPort;
  }

  async load(): Promise<void> {
    this.privateKey = await loadOrCreatePeerKey(this.opts.dir);
  }

  async start(): Promise<void> {
    const hooks = this.hooks;
    if (hooks === undefined || this.privateKey === undefined) {
      throw new Error('the libp2p host was started before it was wired and loaded');
    }
    grantYamuxWindowAtHalf();
    const host = this.opts.host;
    const family = host.includes(':') ? 'ip6' : 'ip4';
    const specific = host !== '0.0.0.0' && host !== '::';
    // A fresh options object per host: createLibp2p writes into it.
    const libp2p = await createLibp2p({
      privateKey: this.privateKey,
      start: false,
      addresses: { listen: [`/${family}/${host}/tcp/${this.opts.port}`] },
      transports: [
        tcp({
          // Dial from the listening address when it is a specific one, so that peers see (and
          // blacklist) this node by the address it serves on.
          dialOpts: (specific ? { localAddress: host } : {}) as object,
        }),
      ],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux({ maxInboundStreams: LIMITS.inboundStreamsPerConnection })],
      connectionGater: {
        denyDialMultiaddr: (ma) => hooks.isBlacklisted(addressOfMultiaddr(ma)?.ip),
        denyInboundConnection: (maConn) => hooks.denyInbound(maConn),
        denyInboundUpgradedConnection: (_peer, maConn) => {
          hooks.upgraded(maConn);
          return false;
        },
      },
      connectionManager: {
        maxConnections: this.opts.maxConnections,
        maxIncomingPendingConnections: this.opts.maxPendingInbound,
        inboundConnectionThreshold: this.opts.inboundConnectionsPerSecond,
        inboundUpgradeTimeout: this.opts.handshakeTimeoutMs,
      },
      connectionMonitor: { pingInterval: this.opts.pingIntervalMs },
      metrics: (components) => this.sockets.metricsWith(this.libp2pMetrics?.()(components)),
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub({
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          emitSelf: false,
          fastMsgIdFn: fastMessageId,
          maxInboundDataLength: LIMITS.blockBytes + 64 * 1024,
        }),
      },
    });
    this.localPeerId = libp2p.peerId.toString();
    await hooks.register(libp2p);
    libp2p.addEventListener('connection:open', (event) => hooks.connectionOpen(event.detail));
    libp2p.addEventListener('connection:close', (event) => hooks.connectionClose(event.detail));
    try {
      await libp2p.start();
    } catch (error) {
      throw listenError(error, host, this.opts.port);
    }
    this.running = libp2p;
    const listening = libp2p
      .getMultiaddrs()
      .map(addressOfMultiaddr)
      .find((a) => a !== undefined);
    if (listening !== undefined) this.actualPort = listening.port;
    // Port 0 picks a free port once; a later nodeStart listens on the same one, so that peers that
    // know this node by its address find it again.
    if (this.opts.port === 0) this.opts.port = this.actualPort;
  }

  halt(): void {
    this.stopping = this.running;
    this.running = undefined;
  }

  async stop(): Promise<void> {
    const host = this.stopping ?? this.running;
    this.stopping = undefined;
    this.running = undefined;
    await host?.stop();
  }
}
