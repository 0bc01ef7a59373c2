// Prometheus metrics (GET /metrics). One registry per daemon. Label values are bounded: the
// route label is the route's pattern ("/api/addresses/:name"), never the path, so a scrape
// stays small whatever clients ask for.
//
// The request counter and latency histogram are on the hot path of every request: they are
// kept here in plain typed arrays per (route, method, status), a few additions a request,
// and turned into Prometheus series only when scraped. The rest use prom-client's own types.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/types';
import type { CommitCompiler } from '../workers/commit-compiler';
import type { SenderStats } from '../syslog/senders';

/** Latency buckets, seconds: from 100 µs (a cached read) to 10 s (a large commit). */
const HTTP_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** One (route, method, status) series: a count per bucket, the sum and the count. */
interface Series {
  labels: { route: string; method: string; status: string };
  buckets: Float64Array; // non-cumulative; the last slot is +Inf
  sum: number;
  count: number;
}

/**
 * HTTP requests per route, method and status: a counter and a latency histogram, shaped for
 * prom-client's registry (name, help, type, get()).
 */
class RequestStats {
  readonly name = 'fwd_http_request_duration_seconds';
  readonly help = 'HTTP requests by route template, method and status: latency from the request\'s arrival to its answer';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  /** The series of a route, method and status (made on first use; routes and statuses are few). */
  seriesOf(route: string, method: string, status: number): Series {
    const key = `${method} ${route} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { route, method, status: String(status) }, buckets: new Float64Array(HTTP_BUCKETS.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  observe(s: Series, seconds: number): void {
    let i = 0;
    while (i < HTTP_BUCKETS.length && seconds > HTTP_BUCKETS[i]) i++;
    s.buckets[i]++;
    s.sum += seconds;
    s.count++;
  }

  get() {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i <= HTTP_BUCKETS.length; i++) {
        acc += s.buckets[i];
        const le = i < HTTP_BUCKETS.length ? HTTP_BUCKETS[i] : '+Inf';
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: acc });
      }
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

export type SessionGauge = () => Promise<{ active: boolean; changes: number }>;

/**
 * A series per syslog target, read from the forwarder's own counts when scraped (the
 * forwarder counts on its hot path in plain numbers; targets are few and fixed at start).
 */
function syslogMetric(name: string, help: string, type: 'counter' | 'gauge', stats: () => SenderStats[], value: (s: SenderStats) => number) {
  return {
    name, help, type, aggregator: 'sum',
    get: () => ({ name, help, type, aggregator: 'sum', values: stats().map((s) => ({ labels: { target: s.target }, value: value(s) })) }),
    reset: () => undefined,
  };
}

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new RequestStats();
  readonly commits: Counter<'result'>;
  readonly commitSeconds: Histogram;
  readonly compileSeconds: Histogram;
  readonly compiledBytes: Gauge;
  readonly storeSeconds: Histogram<'op'>;
  readonly loginFailures: Counter;
  readonly loginThrottled: Counter;
  readonly evalPackets: Counter<'endpoint'>;
  /** the requests being served now (set by the app once the server exists) */
  inFlight: () => number = () => 0;
  /** the open GET /api/events streams (set by the app once the hub exists) */
  eventSubscribers: () => number = () => 0;
  /** the FW_SYSLOG targets' counts (set by the app once the forwarder exists) */
  syslog: () => SenderStats[] = () => [];
  /** the traffic log's counts (set by the app once the log exists) */
  traffic: () => { stored: number; dropped: number; queued: number } = () => ({ stored: 0, dropped: 0, queued: 0 });
  /** dynamic sets' and external lists' entries against FW_DYNAMIC_MAX_ENTRIES, and list fetches (issue 40; set by the app) */
  dynamicCapacity: () => { entries: number; cut: number; max: number; fetches: { ok: number; failed: number } } = () => ({ entries: 0, cut: 0, max: 0, fetches: { ok: 0, failed: 0 } });
  /** FQDN resolutions tried by this instance, by result (issue 40; set by the app) */
  fqdnResolutions: () => { ok: number; failed: number } = () => ({ ok: 0, failed: 0 });
  /** deep analysis passes run here, and results taken from another instance (set by the app) */
  deepPasses: () => { run: number; shared: number } = () => ({ run: 0, shared: 0 });

  constructor(session: SessionGauge) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'fwd_' });
    this.registry.registerMetric(this.requests as never);
    this.commits = new Counter({ name: 'fwd_commits_total', help: 'Commits by result: ok, or failed (checks, compile, store)', labelNames: ['result'], registers });
    this.commitSeconds = new Histogram({ name: 'fwd_commit_duration_seconds', help: 'Commit duration: checks, compile and the durable swap', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers });
    this.compileSeconds = new Histogram({ name: 'fwd_compile_duration_seconds', help: 'Compile duration in the worker pool (commits, validations, candidate evaluations, start-up)', buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers });
    this.compiledBytes = new Gauge({ name: 'fwd_compiled_bytes', help: 'Size of the most recently compiled matcher image', registers });
    this.storeSeconds = new Histogram({ name: 'fwd_store_operation_duration_seconds', help: 'Store operations by name', labelNames: ['op'], buckets: [0.00001, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registers });
    this.loginFailures = new Counter({ name: 'fwd_login_failures_total', help: 'Failed logins (unknown user or wrong password)', registers });
    this.loginThrottled = new Counter({ name: 'fwd_login_throttled_total', help: 'Logins refused with 429 after too many failures', registers });
    this.evalPackets = new Counter({ name: 'fwd_eval_packets_total', help: 'Packets evaluated, by endpoint', labelNames: ['endpoint'], registers });
    const metrics = this;
    const syslog = () => metrics.syslog();
    for (const m of [
      syslogMetric('fwd_syslog_messages_sent_total', 'Syslog messages handed to the kernel, by FW_SYSLOG target', 'counter', syslog, (s) => s.sent),
      syslogMetric('fwd_syslog_messages_dropped_total', 'Syslog messages lost, by target: its buffer (FW_SYSLOG_BUFFER) was full, or a datagram could not be sent', 'counter', syslog, (s) => s.dropped),
      syslogMetric('fwd_syslog_messages_buffered', 'Syslog messages waiting for their target', 'gauge', syslog, (s) => s.buffered),
      syslogMetric('fwd_syslog_connected', '1 while the target is connected (udp: while its socket is set up)', 'gauge', syslog, (s) => (s.connected ? 1 : 0)),
    ]) this.registry.registerMetric(m as never);
    new Gauge({
      name: 'fwd_http_requests_in_flight', help: 'Requests received and not yet answered (this scrape included)', registers,
      collect() { this.set(metrics.inFlight()); },
    });
    new Gauge({
      name: 'fwd_event_subscribers', help: 'Open GET /api/events streams on this instance', registers,
      collect() { this.set(metrics.eventSubscribers()); },
    });
    new Counter({
      name: 'fwd_deep_analysis_passes_total', help: 'Deep analyses of running versions: run on this instance (source="run"), or taken from the instance of the cluster that ran it (source="shared")', labelNames: ['source'], registers,
      collect() { this.reset(); const p = metrics.deepPasses(); this.inc({ source: 'run' }, p.run); this.inc({ source: 'shared' }, p.shared); },
    });
    new Gauge({
      name: 'fwd_dynamic_entries', help: 'Entries in force over every dynamic set and external list (issue 40), within FW_DYNAMIC_MAX_ENTRIES', registers,
      collect() { this.set(metrics.dynamicCapacity().entries); },
    });
    new Gauge({
      name: 'fwd_dynamic_entries_max', help: 'FW_DYNAMIC_MAX_ENTRIES: the limit over every dynamic set and external list', registers,
      collect() { this.set(metrics.dynamicCapacity().max); },
    });
    new Gauge({
      name: 'fwd_dynamic_entries_cut', help: 'Entries of external lists not in force: past FW_LIST_MAX_ENTRIES or FW_DYNAMIC_MAX_ENTRIES (shown per list as `cut` in GET /api/addresses)', registers,
      collect() { this.set(metrics.dynamicCapacity().cut); },
    });
    new Counter({
      name: 'fwd_list_fetches_total', help: 'External list fetches by this instance, by result: ok, or failed (the last good list stays)', labelNames: ['result'], registers,
      collect() { this.reset(); const f = metrics.dynamicCapacity().fetches; this.inc({ result: 'ok' }, f.ok); this.inc({ result: 'failed' }, f.failed); },
    });
    new Counter({
      name: 'fwd_fqdn_resolutions_total', help: 'FQDN address resolutions tried by this instance (in a cluster, the one that holds the resolver lease), by result: ok, or failed (the last good answer stays)', labelNames: ['result'], registers,
      collect() { this.reset(); const r = metrics.fqdnResolutions(); this.inc({ result: 'ok' }, r.ok); this.inc({ result: 'failed' }, r.failed); },
    });
    // counters kept by the traffic log itself (a flood must not pay a prom-client call a record)
    new Counter({
      name: 'fwd_traffic_log_records_total', help: 'Traffic log records kept on this node', registers,
      collect() { this.reset(); this.inc(metrics.traffic().stored); },
    });
    new Counter({
      name: 'fwd_traffic_log_dropped_total', help: 'Traffic log records lost on this node before they were kept: the queue from ulogd was full (FW_TRAFFIC_LOG_QUEUE), or the store refused them', registers,
      collect() { this.reset(); this.inc(metrics.traffic().dropped); },
    });
    new Gauge({
      name: 'fwd_traffic_log_queued', help: 'Traffic log records waiting between ulogd and the traffic log', registers,
      collect() { this.set(metrics.traffic().queued); },
    });
    new Gauge({
      name: 'fwd_session_active', help: '1 while a configuration session is open', registers,
      async collect() { this.set((await session()).active ? 1 : 0); },
    });
    new Gauge({
      name: 'fwd_session_changes', help: 'Changes in the open session\'s journal', registers,
      async collect() { this.set((await session()).changes); },
    });
  }

  /** The text exposition format. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** The compiler with each compile timed, and the size of what it built. */
  timedCompiler(compiler: CommitCompiler): CommitCompiler {
    return {
      compile: async (doc, base, delta, signal) => {
        const end = this.compileSeconds.startTimer();
        const out = await compiler.compile(doc, base, delta, signal).finally(end);
        this.compiledBytes.set(out.compiled.image.buffer.byteLength);
        return out;
      },
      close: () => compiler.close(),
      threads: () => compiler.threads?.() ?? [],
    };
  }

  /**
   * The store with every asynchronous call timed into fwd_store_operation_duration_seconds
   * by method name. The store itself is unchanged; the wrapper is what the daemon uses.
   */
  timedStore(store: Store): Store {
    const hist = this.storeSeconds;
    const children = new Map<string, { observe(v: number): void }>();
    return new Proxy(store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function' || typeof prop !== 'string') return v;
        return (...args: unknown[]) => {
          const t0 = performance.now();
          const out = v.apply(target, args);
          if (!(out instanceof Promise)) return out;
          let child = children.get(prop);
          if (!child) children.set(prop, (child = hist.labels(prop)));
          const done = () => child!.observe((performance.now() - t0) / 1000);
          out.then(done, done);
          return out;
        };
      },
    });
  }
}
