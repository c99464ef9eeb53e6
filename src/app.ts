// The composition root: builds the services from the configuration and registers the routes.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { AgentService } from './agent/agent-service.js';
import { AccessPolicy } from './auth/access-policy.js';
import type { Config } from './config.js';
import { chunkMarkdown } from './ingest/chunk-markdown.js';
import { DocumentConverter } from './ingest/document-converter.js';
import { IngestService } from './ingest/ingest-service.js';
import { packageVersion } from './package-root.js';
import { createHttpRerankModel } from './providers/http-rerank-model.js';
import {
  agentRoute,
  apiReference,
  catalogRoutes,
  feedbackRoute,
  gapsRoutes,
  generateRoute,
  healthRoute,
  installAccessControl,
  installEncodedBodyRefusal,
  installErrorHandling,
  installRateLimit,
  installUnreadBodyRelease,
  mastraRoutes,
  mayAccess,
  mcpRoute,
  openAiRoutes,
  playgroundRoute,
  serverOptions,
  sourcesRoutes,
  variant1IngestRoute,
  variant1SearchRoute,
  variant2IngestRoute,
  variant2SearchRoute,
  webhookRoute,
} from './routes/index.js';
import { CatalogService } from './catalog/catalog-service.js';
import { ChunkEmbedder } from './embedding/chunk-embedder.js';
import { SearchService } from './search/search-service.js';
import { SourcesService } from './sources/index.js';
import { KnowledgeStore } from './store/knowledge-store.js';
import { InsightsService, QuestionRecorder } from './insights/index.js';
import type { ClusterLayout, ClusterLayoutOptions } from './store/postgres/cluster-layout.js';
import { installRequestContext } from './logging/request-context.js';
import { serverLoggingOptions } from './logging/server-logging.js';
import { installHttpMetrics } from './metrics/http-metrics.js';
import { instrumentReranker, selectInstrumentedModels } from './metrics/instrument-models.js';
import { metricsRoute } from './metrics/metrics-route.js';
import { namespaceSizes } from './metrics/namespace-sizes.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { installGracefulShutdown } from './lifecycle/graceful-shutdown.js';

export interface AppOptions {
  /** Fastify logger options; `false` silences it (tests). */
  readonly logger?: FastifyServerOptions['logger'];
  /** Adds process metrics (CPU, memory, event loop) to /metrics; for the real process (tests build many apps). */
  readonly processMetrics?: boolean;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...serverLoggingOptions(
      options.logger,
      [config.provider.apiKey, config.rerank?.apiKey].filter((key) => key !== undefined),
    ),
    ...serverOptions(config),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // First the request context (log lines), then metrics (so refusals are counted), then shutdown's refusal.
  installRequestContext(app);
  const metrics = new ServiceMetrics({
    namespaceSizes: () => namespaceSizes(store),
    namespaceMemory: () => store.memory,
    processMetrics: options.processMetrics,
  });
  installHttpMetrics(app, metrics);
  const shutdownSignal = installGracefulShutdown(app);
  installErrorHandling(app);
  installUnreadBodyRelease(app, config.limits.maxBodyBytes);
  const spendBudget = await installRateLimit(app, config.rateLimitPerMinute);
  installAccessControl(app, new AccessPolicy(config.writeTokens, config.readTokens, config.metricsToken));
  installEncodedBodyRefusal(app);
  await app.register(apiReference, { version: packageVersion, limits: config.limits, timeouts: config.timeouts }); // before the routes: it documents every route registered after it
  if (config.writeTokens === undefined)
    app.log.warn('KNOWLEDGE_AGENT_WRITE_TOKENS is not set: anyone who can reach the service may ingest documents');
  if (config.readTokens === undefined) app.log.info('KNOWLEDGE_AGENT_READ_TOKENS is not set: search and agent routes are open');

  const models = await selectInstrumentedModels(config.provider, app.log, metrics);

  const warn = (message: string) => app.log.warn(message);
  const embeddingModel = models.embeddings?.id ?? null;
  const store = new KnowledgeStore(
    config.databaseUrl === undefined
      ? { root: config.storageRoot, embeddingModel, chunkBody: (body) => chunkMarkdown(body), warn, memoryBudget: config.memoryBudget }
      : {
          layout: await openClusterLayout({ databaseUrl: config.databaseUrl, embeddingModel, warn }),
          warn,
          memoryBudget: config.memoryBudget,
        },
  );
  await store.initialize();
  const questions = new QuestionRecorder({ log: store.questionLog, ...config.questionLog, warn });
  const logError = (message: string, error: unknown) => app.log.error({ err: error }, message);
  const embedder = models.embeddings === undefined ? undefined : new ChunkEmbedder(store, models.embeddings, logError);
  const reranking =
    config.rerank === undefined
      ? undefined
      : { model: instrumentReranker(createHttpRerankModel(config.rerank), metrics), candidates: config.rerank.candidates };
  const converter = new DocumentConverter({ workers: config.conversionWorkers, timeoutMs: config.conversionTimeoutMs });
  const ingestLimits = {
    maxSourceBytes: config.limits.maxSourceBytes,
    maxTextBytes: config.limits.maxTextBytes,
    downloadTimeoutMs: config.limits.downloadTimeoutMs,
    allowPrivateUrls: config.allowPrivateUrls,
    fileRoots: config.fileRoots,
  };
  const ingest = new IngestService({
    store,
    converter,
    embeddings: embedder,
    limits: ingestLimits,
    logError,
    warn: (message) => app.log.warn(message),
    info: (message) => app.log.info(message),
    onIngested: (report, seconds) => metrics.observeIngest(report, seconds),
  });
  const sources = new SourcesService({
    store,
    ingest,
    limits: ingestLimits,
    // A cache beside the namespaces; in cluster mode each replica keeps its own.
    gitCacheRoot:
      config.databaseUrl === undefined ? join(config.storageRoot, '.git-mirrors') : join(tmpdir(), 'knowledge-agent-git-mirrors'),
    warn,
    logError,
    scheduleCheckMs: config.sourceCheckMs,
    onRefreshed: (summary) => metrics.observeRefresh(summary),
  });
  // The schedule starts with the server, not while routes are still being registered.
  app.addHook('onReady', async () => sources.start());
  const search = new SearchService(
    store,
    embedder,
    config.limits.maxResults,
    reranking,
    (namespace, origin) => sources.confirmedAt(namespace, origin),
    models.questionEmbeddings,
  );
  const agent = new AgentService({
    chat: models.chat,
    search,
    topK: config.topK,
    retrieval: config.retrieval,
    coverageCheck: config.coverageCheck,
    mention: config.mention,
    shutdown: shutdownSignal,
    questions,
  });
  const insights = new InsightsService({ questions, embeddings: models.embeddings, search, retrieval: config.retrieval, warn });

  // On close (SIGTERM, tests): stop background embedding, then let queued writes finish.
  app.addHook('onClose', async () => {
    await sources.close();
    await embedder?.close();
    await questions.close();
    await store.close();
    await converter.close();
    await models.embeddings?.close?.();
  });

  await app.register(healthRoute, {
    version: packageVersion,
    store,
    chatModel: models.chat?.id,
    embeddingModel: models.embeddings?.id,
    listNamespaces: config.readTokens === undefined,
  });
  // Each wire format's routes, over the same services.
  const ingestRoutes = {
    ingest,
    defaultNamespace: config.defaultNamespace,
    maxSourceBytes: config.limits.maxSourceBytes,
    maxBodyBytes: config.limits.maxBodyBytes,
  };
  const searchRoutes = { search, defaultNamespace: config.defaultNamespace };
  const agentRoutes = { agent, defaultNamespace: config.defaultNamespace };
  const variant1AgentRoutes = { ...agentRoutes, storagePath: config.storagePath };
  const catalog = new CatalogService(store);
  await app.register(variant1IngestRoute, { ...ingestRoutes, storagePath: config.storagePath });
  await app.register(variant1SearchRoute, { ...searchRoutes, topK: config.topK, storagePath: config.storagePath });
  await app.register(variant2SearchRoute, searchRoutes);
  await app.register(generateRoute, agentRoutes);
  await app.register(mastraRoutes, { ...agentRoutes, modelId: models.chat?.id });
  await app.register(variant2IngestRoute, ingestRoutes);
  for (const prefix of ['/tools', '/api'])
    await app.register(catalogRoutes, { prefix, catalog, defaultNamespace: config.defaultNamespace });
  await app.register(agentRoute, variant1AgentRoutes);
  await app.register(mcpRoute, {
    agent,
    search,
    catalog,
    ingest,
    defaultNamespace: config.defaultNamespace,
    topK: config.topK,
    version: packageVersion,
    spendBudget,
    questions,
    sources,
  });
  await app.register(openAiRoutes, { ...agentRoutes, prefix: '/v1', catalog });
  for (const prefix of ['/tools', '/api']) await app.register(feedbackRoute, { prefix, questions });
  await app.register(gapsRoutes, { insights, defaultNamespace: config.defaultNamespace });
  await app.register(sourcesRoutes, { sources, defaultNamespace: config.defaultNamespace });
  await app.register(webhookRoute, { sources });
  await app.register(playgroundRoute);
  await app.register(metricsRoute, { metrics, mayRead: mayAccess });
  return app;
}

/** Cluster mode's storage; the PostgreSQL client is loaded only then, not at every start-up. */
async function openClusterLayout(options: ClusterLayoutOptions): Promise<ClusterLayout> {
  const { ClusterLayout } = await import('./store/postgres/cluster-layout.js');
  return new ClusterLayout(options);
}
