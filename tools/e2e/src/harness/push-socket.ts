/**
 * A raw WebSocket client of the node's RPC port (the `ws` library), for push tests that must see
 * exactly what the node sends: every message kept in order, calls matched to replies by id,
 * notifications by subscription.
 */
import { WebSocket } from 'ws';
import type { RpcReply } from './node-process';

export interface Notification {
  subscription: string;
  result: Record<string, unknown>;
}

export interface PushSocket {
  readonly ws: WebSocket;
  /** Every message received, parsed, in order. */
  readonly messages: unknown[];
  call(method: string, params?: unknown): Promise<RpcReply>;
  /** subscribe; throws on an error reply. */
  subscribe(params: Record<string, unknown>): Promise<string>;
  /** The notifications of one subscription so far. */
  notifications(subscription: string): Notification['result'][];
  /** Waits until the subscription has at least `count` notifications; returns them. */
  waitNotifications(
    subscription: string,
    count: number,
    timeoutMs?: number,
  ): Promise<Notification['result'][]>;
  close(): Promise<void>;
}

/** The ws:// URL of a node's http:// RPC URL. */
export function wsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

export function openPushSocket(
  httpUrl: string,
  headers: Record<string, string> = {},
): Promise<PushSocket> {
  const ws = new WebSocket(wsUrl(httpUrl), { headers });
  const messages: unknown[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const wake of waiters) wake();
  });
  ws.on('close', () => {
    for (const wake of waiters) wake();
  });
  let nextId = 1;

  async function until<T>(
    what: string,
    probe: () => T | undefined,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (ws.readyState === ws.CLOSED) throw new Error(`socket closed waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, left);
        waiters.add(wake);
      });
    }
  }

  function notifications(subscription: string): Notification['result'][] {
    const out: Notification['result'][] = [];
    for (const message of messages) {
      const m = message as { method?: string; params?: Notification };
      if (m.method === 'subscription' && m.params?.subscription === subscription) {
        out.push(m.params.result);
      }
    }
    return out;
  }

  const socket: PushSocket = {
    ws,
    messages,
    call(method, params) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
      // The node answers every id as a string.
      return until(`the reply to ${method}`, () =>
        messages.find((m) => (m as { id?: unknown }).id === String(id)),
      ) as Promise<RpcReply>;
    },
    async subscribe(params) {
      const reply = await socket.call('subscribe', params);
      if (reply.error !== undefined) {
        throw Object.assign(new Error(`subscribe: ${reply.error.message}`), reply.error);
      }
      return reply.result as string;
    },
    notifications,
    waitNotifications(subscription, count, timeoutMs) {
      return until(
        `${count} notifications of ${subscription}`,
        () => {
          const got = notifications(subscription);
          return got.length >= count ? got : undefined;
        },
        timeoutMs,
      );
    },
    close() {
      if (ws.readyState === ws.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket));
    ws.once('error', reject);
  });
}

/** The HTTP status of a refused upgrade (rejects when the upgrade is accepted). */
export function refusedUpgrade(httpUrl: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(httpUrl), { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => undefined);
  });
}
