/**
 * The userspace delay relay (this kernel has no `tc netem`): every peer-to-peer connection of the
 * lab goes through it. It listens on each node's relay address (netns.ts) at the P2P port; a
 * connection from node i's own address to node j's relay address is the link i->j: the relay dials
 * node j from node i's relay address, so node j sees (and may ban) node i by an address of its own,
 * and remembers an address that leads back through the relay. Each chunk is delayed by the link's
 * latency plus a uniform jitter, in both directions, without reordering a stream.
 *
 * Links can be cut (open connections destroyed, new ones refused) and healed: that is how the lab
 * partitions the network.
 */
import net from 'node:net';

export interface RelayLinkDelay {
  /** One-way latency of each direction, ms. */
  latencyMs: number;
  /** Uniform jitter, +- ms. */
  jitterMs: number;
}

export interface RelayOptions {
  /** Lab node numbers the relay serves. */
  nodes: number[];
  port: number;
  /** Address of node i (its own address, in its namespace). */
  nodeAddress(i: number): string;
  /** Node i's relay address (root namespace). */
  relayAddress(i: number): string;
  delay: RelayLinkDelay;
}

export interface RelayStats {
  connections: number;
  refused: number;
  bytes: number;
}

/**
 * An open link i->j (node i dialled node j) that node j has answered on: a TCP connection whose
 * handshake got under way, not one that was refused or is still waiting for its peer.
 */
export interface RelayLink {
  from: number;
  to: number;
}

export interface Relay {
  start(): Promise<void>;
  /** Cuts every link between a node of one group and a node of another. */
  partition(groups: number[][]): void;
  heal(): void;
  /** Cuts every link of node i (and refuses new ones) until healed. */
  isolate(i: number): void;
  /** The links open now that carried bytes both ways (RelayLink). */
  links(): RelayLink[];
  setDelay(delay: RelayLinkDelay): void;
  stats(): RelayStats;
  close(): Promise<void>;
}

/**
 * Writes chunks of `from` to `to` after `delay()` ms each, in order: one queue and one timer per
 * direction (timers of different durations may fire out of order, which would corrupt the stream),
 * a chunk never due before the previous one. Ends `to` once the last chunk is written. Returns when
 * the last queued chunk is due.
 */
function delayedPipe(
  from: net.Socket,
  to: net.Socket,
  delay: () => number,
  count: (n: number) => void,
): () => number {
  const queue: Array<{ due: number; chunk: Buffer | null }> = [];
  let lastDue = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.due <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) {
      scheduled = true;
      setTimeout(flush, queue[0]!.due - now);
    }
  };
  const enqueue = (chunk: Buffer | null) => {
    lastDue = Math.max(Date.now() + delay(), lastDue);
    queue.push({ due: lastDue, chunk });
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, queue[0]!.due - Date.now());
    }
  };
  from.on('data', (chunk: Buffer) => {
    count(chunk.length);
    enqueue(chunk);
  });
  from.on('end', () => enqueue(null));
  return () => lastDue;
}

export function createRelay(options: RelayOptions): Relay {
  const byAddress = new Map(options.nodes.map((i) => [options.nodeAddress(i), i]));
  const servers: net.Server[] = [];
  const open = new Set<{
    from: number;
    to: number;
    sockets: net.Socket[];
    answered: boolean;
    cut(): void;
  }>();
  let cut: (from: number, to: number) => boolean = () => false;
  let delay = options.delay;
  const stats: RelayStats = { connections: 0, refused: 0, bytes: 0 };
  const oneWay = () => Math.max(0, delay.latencyMs + (Math.random() * 2 - 1) * delay.jitterMs);
  const count = (n: number) => {
    stats.bytes += n;
  };

  function onConnection(to: number, inbound: net.Socket) {
    const from = byAddress.get(inbound.remoteAddress?.replace(/^::ffff:/, '') ?? '');
    if (from === undefined || cut(from, to)) {
      stats.refused++;
      inbound.destroy();
      return;
    }
    stats.connections++;
    const outbound = net.connect({
      host: options.nodeAddress(to),
      port: options.port,
      localAddress: options.relayAddress(from),
    });
    const link = { from, to, sockets: [inbound, outbound], answered: false, cut: () => close() };
    outbound.once('data', () => {
      link.answered = true;
    });
    open.add(link);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      open.delete(link);
      inbound.destroy();
      outbound.destroy();
    };
    for (const socket of link.sockets) {
      socket.setNoDelay(true);
      socket.on('error', close);
    }
    const forwardDue = delayedPipe(inbound, outbound, oneWay, count);
    const backDue = delayedPipe(outbound, inbound, oneWay, count);
    // A side that closed may still have bytes on their way to the other (delayed): deliver them
    // before closing everything, as a real link would.
    const closeAfterFlight = () => {
      const due = Math.max(forwardDue(), backDue()) - Date.now();
      setTimeout(close, Math.max(0, due) + 10);
    };
    inbound.on('close', closeAfterFlight);
    outbound.on('close', closeAfterFlight);
  }

  function applyCut(rule: (from: number, to: number) => boolean) {
    cut = rule;
    for (const link of [...open]) {
      if (rule(link.from, link.to)) link.cut();
    }
  }

  return {
    async start() {
      for (const to of options.nodes) {
        const server = net.createServer((socket) => onConnection(to, socket));
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(options.port, options.relayAddress(to), () => resolve());
        });
        servers.push(server);
      }
    },
    partition(groups) {
      const groupOf = new Map<number, number>();
      groups.forEach((group, g) => {
        for (const i of group) groupOf.set(i, g);
      });
      applyCut((a, b) => groupOf.get(a) !== groupOf.get(b));
    },
    heal() {
      cut = () => false;
    },
    isolate(i) {
      applyCut((a, b) => a === i || b === i);
    },
    links() {
      return [...open].filter((l) => l.answered).map(({ from, to }) => ({ from, to }));
    },
    setDelay(next) {
      delay = next;
    },
    stats: () => ({ ...stats }),
    async close() {
      for (const link of [...open]) link.cut();
      await Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
    },
  };
}
