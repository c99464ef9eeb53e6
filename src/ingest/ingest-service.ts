// Ingestion: load each source, convert and chunk it, embed the chunks, and commit the documents to a namespace.
// Sources are independent: one failing never stops the others, and each failure is reported with its reason.
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import { contentHash } from '../store/content-hash.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import type { StoredDocument } from '../store/stored-document.js';
import { chunkMarkdown } from './chunk-markdown.js';
import { embeddingText } from './embedding-text.js';
import { describeSource, type IngestSource, type InvalidSource } from './ingest-source.js';
import { loadSource, type SourceLimits } from './load-source.js';

export type SourceOutcome =
  | { readonly index: number; readonly source: string; readonly status: 'saved' | 'updated' | 'skipped'; readonly document: StoredDocument }
  | { readonly index: number; readonly source: string; readonly status: 'failed'; readonly error: KnowledgeError };

export interface IngestReport {
  readonly namespace: string;
  readonly outcomes: readonly SourceOutcome[];
}

export interface IngestServiceOptions {
  readonly store: KnowledgeStore;
  /** Undefined when no embedding provider is configured: documents are stored for lexical search, vectors wait. */
  readonly embeddings: EmbeddingModel | undefined;
  readonly limits: SourceLimits;
  /** Sources of one request processed at once. */
  readonly concurrency?: number;
  readonly logError: (message: string, error: unknown) => void;
}

export class IngestService {
  constructor(private readonly options: IngestServiceOptions) {}

  async ingest(namespaceName: string, sources: readonly (IngestSource | InvalidSource)[]): Promise<IngestReport> {
    const namespace = await this.options.store.namespace(namespaceName);
    const outcomes: SourceOutcome[] = new Array(sources.length);
    let next = 0;
    const worker = async () => {
      while (next < sources.length) {
        const index = next++;
        const source = sources[index] as IngestSource | InvalidSource;
        outcomes[index] = await this.ingestOne(namespace, index, source);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 4, sources.length) }, worker));
    return { namespace: namespace.name, outcomes };
  }

  private async ingestOne(namespace: Namespace, index: number, source: IngestSource | InvalidSource): Promise<SourceOutcome> {
    const label = describeSource(source);
    if (source.kind === 'invalid') return { index, source: label, status: 'failed', error: source.error };
    try {
      const loaded = await loadSource(source, this.options.limits);
      const body = loaded.markdown.trim();
      if (body === '') throw new KnowledgeError('document_empty', `${label} holds no text`);
      const hash = contentHash(body);
      const known = namespace.findByHash(hash);
      if (known !== undefined) return { index, source: label, status: 'skipped', document: known };

      const chunks = chunkMarkdown(body);
      const vectors = this.options.embeddings === undefined
        ? undefined
        : await this.options.embeddings.embed(chunks.map((chunk) => embeddingText(loaded.title, chunk.headingPath, chunk.text)));
      const [outcome] = await namespace.commitDocuments([
        {
          title: loaded.title,
          source: source.kind === 'text' ? 'text' : label,
          body,
          hash,
          embeddingModel: vectors === undefined ? null : (this.options.embeddings?.id ?? null),
          chunks: chunks.map((chunk, ordinal) => ({ ...chunk, embedding: vectors?.[ordinal] ?? null })),
        },
      ]);
      if (outcome === undefined) throw new Error('commit returned no outcome');
      return { index, source: label, status: outcome.status, document: outcome.document };
    } catch (error) {
      if (isKnowledgeError(error)) return { index, source: label, status: 'failed', error };
      this.options.logError(`ingest of source ${index} failed unexpectedly`, error);
      return { index, source: label, status: 'failed', error: new KnowledgeError('internal_error', 'an unexpected error occurred while ingesting this source') };
    }
  }
}
