// The gaps report of a namespace, from its question log: embeds the questions with the service's embedding model
// (cached, so a report asked again embeds only new questions), finds the closest pages with the service's search.
import { forEachConcurrently } from '../concurrency.js';
import { isKnowledgeError } from '../errors.js';
import { tokenize } from '../indexes/tokenize.js';
import type { EmbeddingModel } from '../providers/embedding-model.js';
import type { SearchMode, SearchService } from '../search/search-service.js';
import { buildGapsReport, type GapsReport, type ReportPage } from './gaps-report.js';
import type { QuestionRecorder } from './question-recorder.js';
import type { NamespaceName } from '../store/namespace-name.js';

export interface InsightsServiceOptions {
  readonly questions: QuestionRecorder;
  readonly embeddings: EmbeddingModel | undefined;
  readonly search: SearchService;
  readonly retrieval: SearchMode;
  readonly warn: (message: string) => void;
}

const embeddedTogether = 32;
const batchesAtOnce = 4;
const cachedVectors = 20_000;
const closestPagesPerGroup = 3;
/** Dimensions of the word vectors used when no embedding model is available (hashed stems). */
const lexicalDimensions = 1024;

export class InsightsService {
  private readonly vectors = new Map<string, Float32Array>();

  constructor(private readonly options: InsightsServiceOptions) {}

  async gapsReport(namespace: NamespaceName, since: Date, signal: AbortSignal): Promise<GapsReport> {
    const until = new Date();
    const records = await this.options.questions.records(namespace, since, signal);
    const start = since > this.options.questions.retentionStart ? since : this.options.questions.retentionStart;
    return buildGapsReport({
      namespace,
      since: start,
      until,
      mode: this.options.questions.mode,
      records,
      embed: (texts) => this.embed(texts, signal),
      closestPages: (query) => this.closestPages(namespace, query, signal),
    });
  }

  private async embed(texts: readonly string[], signal: AbortSignal): Promise<{ vectors: Float32Array[]; kind: 'embedding' | 'lexical' }> {
    const model = this.options.embeddings;
    if (model === undefined) return { vectors: texts.map(wordVector), kind: 'lexical' };
    try {
      const missing = [...new Set(texts.filter((text) => !this.vectors.has(text)))];
      const batches = Array.from({ length: Math.ceil(missing.length / embeddedTogether) }, (_, index) =>
        missing.slice(index * embeddedTogether, (index + 1) * embeddedTogether),
      );
      // A few batches at once: the local model's workers (or the provider's connections) take them in parallel.
      await forEachConcurrently(batches, batchesAtOnce, async (batch) => {
        const vectors = await model.embed(batch, signal);
        batch.forEach((text, index) => this.remember(text, vectors[index] as Float32Array));
      });
      return { vectors: texts.map((text) => this.vectors.get(text) as Float32Array), kind: 'embedding' };
    } catch (error) {
      if (!isKnowledgeError(error) || signal.aborted) throw error;
      // A provider that is down leaves the report possible: grouped by shared words, and the report says so.
      this.options.warn(`the gaps report groups questions by their words: the embedding model failed (${error.message})`);
      return { vectors: texts.map(wordVector), kind: 'lexical' };
    }
  }

  private remember(text: string, vector: Float32Array): void {
    if (this.vectors.size >= cachedVectors) this.vectors.delete(this.vectors.keys().next().value as string);
    this.vectors.set(text, vector);
  }

  private async closestPages(namespace: NamespaceName, query: string, signal: AbortSignal): Promise<ReportPage[]> {
    const outcome = await this.options.search.search(namespace, query, {
      mode: this.options.retrieval,
      limit: closestPagesPerGroup * 3,
      signal,
    });
    const pages = new Map<string, ReportPage>();
    for (const hit of outcome.hits) {
      if (pages.size >= closestPagesPerGroup) break;
      if (!pages.has(hit.chunk.file))
        pages.set(hit.chunk.file, { title: hit.document.title, file: hit.chunk.file, origin: hit.document.origin, score: hit.score });
    }
    return [...pages.values()];
  }
}

/** A question's stems hashed into a fixed number of dimensions: cosine then measures the words two questions share. */
function wordVector(text: string): Float32Array {
  const vector = new Float32Array(lexicalDimensions);
  for (const term of new Set(tokenize(text))) {
    let hash = 2_166_136_261;
    for (let index = 0; index < term.length; index++) hash = Math.imul(hash ^ term.charCodeAt(index), 16_777_619);
    vector[(hash >>> 0) % lexicalDimensions] = 1;
  }
  return vector;
}
