// The parts of autocannon 8's programmatic API the load worker uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }

  interface Options {
    url: string;
    method?: 'POST' | 'GET';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    pipelining?: number;
    /** Seconds. */
    timeout?: number;
    verifyBody?: (body: string) => boolean;
  }

  interface Result {
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    /** Latency in milliseconds. */
    latency: Histogram;
    /** `total` = completed requests. */
    requests: Histogram;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
