// How chunk size and overlap change retrieval on the FastAPI docs: for questions written from those pages
// (bench/fastapi-questions.json), how often a chunk holding the answer ranks in the top 4, and its MRR@10.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DocumentConverter } from '../src/ingest/document-converter.js';
import { loadSource } from '../src/ingest/load-source.js';
import type { EmbeddingModel } from '../src/providers/embedding-model.js';
import { indexCorpus, runQueries, type CorpusChunk, type CorpusDocument, type QueryLists } from './chunked-corpus.js';
import { modeHits, searchModes, type HybridFusion } from './prepared-set.js';
import { formatTable } from './ranking-scores.js';

export interface FastapiQuestion {
  readonly question: string;
  /** Page path under the docs folder. */
  readonly page: string;
  /** The heading (as the chunker cleans it) of the section holding the answer. */
  readonly heading: string;
  /** A verbatim passage of the page that answers the question. */
  readonly answer: string;
}

export const chunkSizes = [600, 900, 1200, 1600] as const;
export const chunkOverlaps = [0, 150, 300] as const;
/** Snippets an agent run passes to the model (the service's default top_k). */
const cutoff = 4;

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

function markdownFiles(directory: string): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((entry) => {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) return markdownFiles(path);
      return entry.endsWith('.md') ? [path] : [];
    });
}

// Markdown pages are converted in place, so this converter never starts a worker.
const markdownConverter = new DocumentConverter({ workers: 1 });

/** Each page loaded the way a file ingest loads it: front matter stripped, title from the first heading. */
export async function loadDocsPages(root: string): Promise<CorpusDocument[]> {
  const realRoot = realpathSync(root);
  const limits = { maxSourceBytes: 64 << 20, maxTextBytes: 64 << 20, downloadTimeoutMs: 0, allowPrivateUrls: false, fileRoots: [realRoot] };
  const pages: CorpusDocument[] = [];
  for (const file of markdownFiles(realRoot)) {
    const loaded = await loadSource({ kind: 'file', path: file }, limits, markdownConverter);
    pages.push({ id: relative(realRoot, file), title: loaded.title, text: loaded.markdown.trim() });
  }
  return pages;
}

export function loadQuestions(file: string): FastapiQuestion[] {
  return JSON.parse(readFileSync(file, 'utf8')) as FastapiQuestion[];
}

interface ConfigurationResult {
  readonly maxChars: number;
  readonly overlapChars: number;
  readonly chunkCount: number;
  readonly meanChars: number;
  /** Questions whose answer lies whole inside at least one chunk. */
  readonly intact: number;
  /** Questions with an answer chunk in the top 4, per mode. */
  readonly found: Record<(typeof searchModes)[number], number>;
  /** Mean reciprocal rank of the first answer chunk within the top 10, per mode. */
  readonly mrr: Record<(typeof searchModes)[number], number>;
  readonly embedSeconds: number;
  readonly cached: boolean;
}

export async function runChunkingStudy(
  model: EmbeddingModel,
  docsRoot: string,
  questions: readonly FastapiQuestion[],
  fusion: HybridFusion,
  report: (message: string) => void,
): Promise<string> {
  const pages = await loadDocsPages(docsRoot);
  const pageIds = new Set(pages.map((page) => page.id));
  for (const question of questions) {
    if (!pageIds.has(question.page)) throw new Error(`question "${question.question}" names ${question.page}, which is not in ${docsRoot}`);
  }
  const known = new Map<string, Float32Array>();
  const results: ConfigurationResult[] = [];
  for (const maxChars of chunkSizes) {
    for (const overlapChars of chunkOverlaps) {
      const corpus = await indexCorpus(
        pages,
        model,
        `docs-fastapi-${maxChars}-${overlapChars}`,
        { maxChars, overlapChars },
        { known, report },
      );
      const { lists } = await runQueries(
        corpus,
        questions.map((question) => question.question),
        model,
        'docs-fastapi-questions',
        Math.max(10, fusion.depth),
      );
      const holds = (chunk: CorpusChunk | undefined, question: FastapiQuestion): boolean =>
        chunk !== undefined && chunk.documentId === question.page && collapse(chunk.text).includes(collapse(question.answer));
      const found = { lexical: 0, embedding: 0, hybrid: 0 };
      const mrr = { lexical: 0, embedding: 0, hybrid: 0 };
      let intact = 0;
      questions.forEach((question, index) => {
        const holding = corpus.chunks.filter((chunk) => holds(chunk, question));
        if (holding.length > 0) intact++;
        if (
          maxChars === 1200 &&
          overlapChars === 150 &&
          holding.length > 0 &&
          !holding.some((chunk) => chunk.headingPath.includes(question.heading))
        ) {
          report(`  note: the answer to "${question.question}" is not under the heading "${question.heading}"`);
        }
        for (const mode of searchModes) {
          const hits = modeHits(lists[index] as QueryLists, corpus, mode, 10, fusion);
          const rank = hits.findIndex((hit) => holds(corpus.chunkByKey.get(hit.key), question));
          if (rank >= 0 && rank < cutoff) found[mode]++;
          if (rank >= 0) mrr[mode] += 1 / (rank + 1) / questions.length;
        }
      });
      const totalChars = corpus.chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
      results.push({
        maxChars,
        overlapChars,
        chunkCount: corpus.chunks.length,
        meanChars: totalChars / Math.max(1, corpus.chunks.length),
        intact,
        found,
        mrr,
        embedSeconds: corpus.timings.embedMilliseconds / 1000,
        cached: corpus.timings.embeddingsCached,
      });
    }
  }
  const share = (count: number): string => `${count}/${questions.length} (${Math.round((100 * count) / questions.length)}%)`;
  return formatTable(
    [
      'maxChars',
      'overlap',
      'chunks',
      'mean chars',
      'answer intact',
      'lexical top 4',
      'embedding top 4',
      'hybrid top 4',
      'MRR@10 lex / emb / hyb',
      'embed s',
    ],
    results.map((result) => [
      String(result.maxChars),
      String(result.overlapChars),
      String(result.chunkCount),
      result.meanChars.toFixed(0),
      share(result.intact),
      share(result.found.lexical),
      share(result.found.embedding),
      share(result.found.hybrid),
      searchModes.map((mode) => result.mrr[mode].toFixed(2)).join(' / '),
      `${result.embedSeconds.toFixed(1)}${result.cached ? ' (cache)' : ''}`,
    ]),
    0,
  );
}
