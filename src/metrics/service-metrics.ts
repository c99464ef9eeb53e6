// The service's Prometheus metrics: one registry per app (never prom-client's global one), the instruments, and
// the scrape, which reads the index sizes of the namespaces the scraper may see at that moment.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { IngestReport } from '../ingest/ingest-service.js';
import type { RefreshSummary } from '../store/source-registry.js';
import type { NamespaceMemory } from '../store/knowledge-store.js';

export type ProviderCallKind = 'chat' | 'embeddings' | 'rerank';
/** `aborted`: the caller stopped the call (the client left, the service is shutting down). */
export type ProviderCallOutcome = 'success' | 'error' | 'aborted';

export interface NamespaceSize {
  readonly namespace: string;
  readonly documents: number;
  readonly chunks: number;
  /** Chunks embedded with the namespace's current embedding model; undefined when not known without loading it. */
  readonly vectors: number | undefined;
}

export interface ServiceMetricsOptions {
  /** Read at every scrape. */
  readonly namespaceSizes: () => Promise<readonly NamespaceSize[]>;
  /** Read at every scrape. */
  readonly namespaceMemory: () => NamespaceMemory;
  /** Adds prom-client's process metrics (CPU, memory, event-loop lag); for the real process, not for tests that build many apps. */
  readonly processMetrics?: boolean;
}

/** Seconds; agent streams and crawls run far longer than a plain request. */
const requestBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const ingestBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const providerBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });
  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response (a whole stream for streamed answers).',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: requestBuckets,
    registers: [this.registry],
  });
  private readonly ingestSources = new Counter({
    name: 'ingest_sources_total',
    help: 'Ingested sources (crawled pages count one each), by outcome: saved, updated, skipped or failed.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly ingestChunks = new Counter({
    name: 'ingest_chunks_total',
    help: 'Chunks added by saved and updated documents.',
    registers: [this.registry],
  });
  private readonly ingestDuration = new Histogram({
    name: 'ingest_duration_seconds',
    help: 'Time to ingest the sources of one request.',
    buckets: ingestBuckets,
    registers: [this.registry],
  });
  private readonly sourceRefreshes = new Counter({
    name: 'source_refreshes_total',
    help: 'Refreshes of registered sources, by trigger: added, schedule, manual or webhook.',
    labelNames: ['trigger'] as const,
    registers: [this.registry],
  });
  private readonly sourceRefreshPages = new Counter({
    name: 'source_refresh_pages_total',
    help: 'What refreshes found, page or file by page: unchanged, updated, added, removed or failed.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly sourceRefreshDuration = new Histogram({
    name: 'source_refresh_duration_seconds',
    help: 'Time of one refresh of a registered source.',
    buckets: ingestBuckets,
    registers: [this.registry],
  });
  private readonly providerCalls = new Counter({
    name: 'provider_calls_total',
    help: 'Calls to the chat, embedding and rerank models, by kind, model and outcome (success, error, aborted).',
    labelNames: ['kind', 'model', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly providerDuration = new Histogram({
    name: 'provider_call_duration_seconds',
    help: 'Duration of calls to the chat (the whole streamed answer), embedding and rerank models.',
    labelNames: ['kind', 'model'] as const,
    buckets: providerBuckets,
    registers: [this.registry],
  });
  constructor(private readonly options: ServiceMetricsOptions) {
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry });
    // No namespace is named in these: every scrape may see them.
    const memory = (name: string, help: string, value: (memory: NamespaceMemory) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(value(options.namespaceMemory()));
        },
      });
    memory('namespaces_loaded', 'Namespaces loaded in memory.', (current) => current.loaded);
    memory('namespaces_loaded_bytes', 'Estimated bytes the loaded namespaces hold.', (current) => current.estimatedBytes);
    memory(
      'namespaces_memory_budget_bytes',
      'KNOWLEDGE_AGENT_MEMORY_BUDGET: bytes the loaded namespaces may hold.',
      (current) => current.budgetBytes,
    );
    let counted = 0;
    new Counter({
      name: 'namespaces_evicted_total',
      help: 'Namespaces closed to keep within the memory budget (opened again on their next use).',
      registers: [this.registry],
      collect() {
        const evictions = options.namespaceMemory().evictions;
        this.inc(evictions - counted);
        counted = evictions;
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    const labels = { method, route, status_code: String(statusCode) };
    this.requests.inc(labels);
    this.requestDuration.observe(labels, seconds);
  }

  observeIngest(report: IngestReport, seconds: number): void {
    for (const outcome of report.outcomes) {
      this.ingestSources.inc({ outcome: outcome.status });
      if (outcome.status === 'saved' || outcome.status === 'updated') this.ingestChunks.inc(outcome.document.chunks.length);
    }
    this.ingestDuration.observe(seconds);
  }

  observeRefresh(summary: RefreshSummary): void {
    this.sourceRefreshes.inc({ trigger: summary.trigger });
    for (const result of ['unchanged', 'updated', 'added', 'removed'] as const) this.sourceRefreshPages.inc({ result }, summary[result]);
    this.sourceRefreshPages.inc({ result: 'failed' }, summary.failed.length);
    this.sourceRefreshDuration.observe((Date.parse(summary.finishedAt) - Date.parse(summary.startedAt)) / 1000);
  }

  observeProviderCall(kind: ProviderCallKind, model: string, outcome: ProviderCallOutcome, seconds: number): void {
    this.providerCalls.inc({ kind, model, outcome });
    this.providerDuration.observe({ kind, model }, seconds);
  }

  /**
   * The metrics in Prometheus' text format, with the index sizes read now (namespaces deleted since are gone), for
   * the namespaces `mayRead` lets this scrape see. The gauges live in a registry of this scrape alone, so two
   * scrapes at once (tokens that see different namespaces) never show each other's namespaces.
   */
  async scrape(mayRead: (namespace: string) => boolean): Promise<string> {
    const sizes = (await this.options.namespaceSizes()).filter((size) => mayRead(size.namespace));
    const namespaceRegistry = new Registry();
    const gauge = (name: string, help: string, value: (size: NamespaceSize) => number | undefined) => {
      const metric = new Gauge({ name, help, labelNames: ['namespace'] as const, registers: [namespaceRegistry] });
      for (const size of sizes) {
        const measured = value(size);
        if (measured !== undefined) metric.set({ namespace: size.namespace }, measured);
      }
    };
    gauge('index_documents', 'Documents stored in a namespace.', (size) => size.documents);
    gauge('index_chunks', 'Chunks indexed in a namespace.', (size) => size.chunks);
    gauge('index_vectors', 'Chunks of a namespace embedded with its current embedding model.', (size) => size.vectors);
    return `${await this.registry.metrics()}\n${await namespaceRegistry.metrics()}`;
  }
}
