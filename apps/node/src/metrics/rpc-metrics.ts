import type { MethodCounter } from '@chain/rpc-jayson';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Upper bounds (seconds) of chain_rpc_request_duration_seconds: a cached read takes microseconds,
 * a passphrase check (scrypt) a good part of a second.
 */
export const RPC_DURATION_BUCKETS = [
  0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

type Counters = () => readonly Readonly<MethodCounter>[];

const NAME = 'chain_rpc_request_duration_seconds';
const HELP = 'Time to answer a JSON-RPC call, by method';

/**
 * chain_rpc_request_duration_seconds, read from the dispatcher's per-method duration buckets at
 * scrape time (the dispatcher counts; nothing here runs per call). prom-client formats it.
 */
class RpcDurationHistogram extends Histogram<'method'> {
  constructor(
    registry: Registry,
    private readonly counters: Counters,
    private readonly bounds: readonly number[],
  ) {
    super({
      name: NAME,
      help: HELP,
      labelNames: ['method'],
      buckets: [...bounds],
      registers: [registry],
    });
  }

  // The registry's text output asks getForPromString, its JSON output get: both answer the same
  // (and neither calls the other: prom-client's get calls getForPromString).
  async getForPromString() {
    return this.exported();
  }

  override async get() {
    return this.exported();
  }

  private exported(): Awaited<ReturnType<Histogram<'method'>['get']>> {
    const values: { metricName: string; labels: { method: string }; value: number }[] = [];
    for (const counter of this.counters()) {
      const durations = counter.durations;
      if (durations === undefined || counter.calls === 0) continue;
      const method = counter.method;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += durations.counts[i]!;
        values.push(bucket(method, bound, cumulative));
      });
      cumulative += durations.counts[this.bounds.length]!;
      values.push(bucket(method, '+Inf', cumulative));
      values.push({
        metricName: `${NAME}_sum`,
        labels: { method },
        value: counter.milliseconds / 1000,
      });
      values.push({ metricName: `${NAME}_count`, labels: { method }, value: counter.calls });
    }
    const exported = { name: NAME, help: HELP, type: 'histogram', aggregator: 'sum', values };
    return exported as unknown as Awaited<ReturnType<Histogram<'method'>['get']>>;
  }
}

function bucket(method: string, le: number | string, value: number) {
  return {
    metricName: `${NAME}_bucket`,
    labels: { method, le } as { method: string },
    value,
  };
}

/**
 * chain_rpc_requests_total{method,outcome} and chain_rpc_request_duration_seconds, both read from
 * the RPC server's per-method counters (rpcCallStats' own) when Prometheus scrapes.
 */
export function registerRpcMetrics(registry: Registry, counters: Counters): void {
  new Counter({
    name: 'chain_rpc_requests_total',
    help: 'JSON-RPC calls answered, by method and outcome (ok or error)',
    labelNames: ['method', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const counter of counters()) {
        if (counter.calls === 0) continue;
        this.inc({ method: counter.method, outcome: 'ok' }, counter.calls - counter.errors);
        this.inc({ method: counter.method, outcome: 'error' }, counter.errors);
      }
    },
  });
  new RpcDurationHistogram(registry, counters, RPC_DURATION_BUCKETS);
}
