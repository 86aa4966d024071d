import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { Logger } from '../logger';

export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The metrics listener (--metrics-address:--metrics-port, apart from the RPC port so that it can be
 * exposed to a scraper without exposing the RPC): GET /metrics answers the Prometheus text format.
 * It reveals counts, never keys or addresses, and needs no credentials.
 */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  exposition: () => Promise<string>;
  log: Logger;
}): Promise<MetricsServer> {
  const { exposition, log } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(req.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain' });
      res.end(req.method === 'GET' ? 'not found: metrics are at /metrics\n' : 'GET only\n');
      return;
    }
    exposition().then(
      (text) => {
        res.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE });
        res.end(text);
      },
      (err: unknown) => {
        log.error({ err }, 'metrics exposition failed');
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}/metrics`;
  log.info({ url }, 'metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
