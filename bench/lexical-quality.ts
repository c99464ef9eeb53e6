// Retrieval quality of LexicalIndex on BEIR-layout sets (nDCG@10, Recall@10/100, MRR@10) and, for field
// weights, a known-item test on the FastAPI docs where link texts are the queries and link targets the answers.
// Run: npx tsx bench/lexical-quality.ts [--sweep]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { LexicalIndex, defaultLexicalIndexOptions, type LexicalIndexOptions } from '../src/indexes/lexical-index.js';
import { mean, ndcgAt, recallAt, reciprocalRankAt, type RelevanceJudgments } from '../src/search/metrics.js';
import { loadBeirSet, type BeirSet } from './beir-set.js';
import { plainBm25Rankings } from './plain-bm25.js';
import { linearGain } from './ranking-scores.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

requireSharedData('msmarco-trecdl-5k', 'vaswani-npl', 'docs-fastapi');
const dataRoot = sharedDataDirectory;

interface Scores {
  ndcg10: number;
  ndcg10Linear: number;
  recall10: number;
  recall100: number;
  mrr10: number;
}

function score(rankings: Map<string, string[]>, judgments: ReadonlyMap<string, RelevanceJudgments>): Scores {
  const of = (metric: (ranking: string[], judged: RelevanceJudgments) => number) =>
    mean([...rankings].map(([queryId, ranking]) => metric(ranking, judgments.get(queryId) ?? new Map())));
  return {
    ndcg10: of((ranking, judged) => ndcgAt(ranking, judged, 10)),
    ndcg10Linear: of((ranking, judged) => ndcgAt(ranking, judged, 10, linearGain)),
    recall10: of((ranking, judged) => recallAt(ranking, judged, 10)),
    recall100: of((ranking, judged) => recallAt(ranking, judged, 100)),
    mrr10: of((ranking, judged) => reciprocalRankAt(ranking, judged, 10)),
  };
}

function evaluateIndex(dataset: BeirSet, options: Partial<LexicalIndexOptions>): Scores {
  const index = new LexicalIndex(options);
  for (const document of dataset.documents) index.add(document.id, { title: document.title, headings: '', body: document.text });
  const rankings = new Map(dataset.queries.map((query) => [query.id, index.search(query.text, 100).map((hit) => hit.key)]));
  return score(rankings, dataset.judgments);
}

/** The stated baseline (lowercase alphanumeric tokens, no stemming or stopwords, k1 0.9, b 0.4), to check the metrics. */
function evaluatePlainBm25(set: BeirSet): Scores {
  const rankings = plainBm25Rankings(set, 100);
  return score(new Map(set.queries.map((query, index) => [query.id, rankings[index] ?? []])), set.judgments);
}

interface DocsChunk {
  key: string;
  page: string;
  anchors: string[];
  fields: { title: string; headings: string; body: string };
}

/** Splits the FastAPI pages at headings (outside code fences); long sections become ~200-word pieces. */
function chunkDocs(root: string): DocsChunk[] {
  const files: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory).sort()) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.md')) files.push(path);
    }
  };
  walk(root);
  const chunks: DocsChunk[] = [];
  for (const file of files) {
    const page = relative(root, file);
    let title = page;
    let path: string[] = [];
    let anchors: string[] = [];
    let lines: string[] = [];
    let inFence = false;
    const flush = (): void => {
      const words = lines
        .join('\n')
        .split(/\s+/)
        .filter((word) => word !== '');
      for (let start = 0; start < words.length; start += 200) {
        const body = words.slice(start, start + 200).join(' ');
        chunks.push({ key: `${page}#${chunks.length}`, page, anchors, fields: { title, headings: path.join(' > '), body } });
      }
      lines = [];
    };
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.startsWith('```')) inFence = !inFence;
      const heading = inFence ? null : /^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)\s*\})?\s*$/.exec(line);
      if (heading === null) {
        lines.push(line);
        continue;
      }
      flush();
      const level = (heading[1] ?? '#').length;
      const text = heading[2] ?? '';
      if (level === 1) {
        title = text;
        path = [];
      } else {
        path = [...path.slice(0, level - 2), text];
      }
      anchors = heading[3] === undefined ? [] : [heading[3]];
    }
    flush();
  }
  return chunks;
}

interface KnownItem {
  query: string;
  /** Whether the link names a section (#fragment), so only that section's chunks count. */
  section: boolean;
  sourcePage: string;
  relevant: Set<string>;
}

/** Internal links as known-item queries: the link text should find the linked page (or section). */
function linkQueries(root: string, chunks: DocsChunk[]): KnownItem[] {
  const items = new Map<string, KnownItem>();
  const pages = new Set(chunks.map((chunk) => chunk.page));
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const match of text.matchAll(/\[([^\]]+)\]\(([^)#\s]+\.md)(?:#([\w-]+))?\)/g)) {
      const [, query = '', target = '', fragment] = match;
      if (target.includes('://')) continue;
      const targetPage = normalize(join(dirname(page), target));
      if (targetPage === page || !pages.has(targetPage)) continue;
      const relevant = new Set(
        chunks
          .filter((chunk) => chunk.page === targetPage && (fragment === undefined || chunk.anchors.includes(fragment)))
          .map((chunk) => chunk.key),
      );
      if (relevant.size === 0) continue;
      items.set(`${query}\u0000${targetPage}#${fragment ?? ''}`, { query, section: fragment !== undefined, sourcePage: page, relevant });
    }
  }
  return [...items.values()];
}

function evaluateDocs(chunks: DocsChunk[], items: KnownItem[], options: Partial<LexicalIndexOptions>): Scores {
  const index = new LexicalIndex(options);
  for (const chunk of chunks) index.add(chunk.key, chunk.fields);
  const pageOf = new Map(chunks.map((chunk) => [chunk.key, chunk.page]));
  const rankings = new Map<string, string[]>();
  const judgments = new Map<string, RelevanceJudgments>();
  items.forEach((item, number) => {
    // The linking page contains the link text itself, so it is left out of its own query's ranking.
    const ranking = index
      .search(item.query, 150)
      .map((hit) => hit.key)
      .filter((key) => pageOf.get(key) !== item.sourcePage);
    rankings.set(String(number), ranking);
    judgments.set(String(number), new Map([...item.relevant].map((key) => [key, 1])));
  });
  return score(rankings, judgments as Map<string, RelevanceJudgments>);
}

const format = (scores: Scores): string =>
  [scores.ndcg10, scores.ndcg10Linear, scores.recall10, scores.recall100, scores.mrr10]
    .map((value) => value.toFixed(3).padStart(9))
    .join('');
// nDCG@10 uses 2^grade - 1 gains like the stated baselines; "linear" is trec_eval's grade-as-gain form.
const header = `${'setting'.padEnd(44)}${['nDCG@10', 'linear', 'R@10', 'R@100', 'MRR@10'].map((name) => name.padStart(9)).join('')}`;

const datasets = ['msmarco-trecdl-5k', 'vaswani-npl'].map((name) => loadBeirSet(join(dataRoot, name)));
for (const dataset of datasets) {
  console.log(`\n${dataset.name}: ${dataset.documents.length} documents, ${dataset.queries.length} judged queries`);
  console.log(header);
  console.log(`${'plain BM25 baseline (k1 0.9, b 0.4)'.padEnd(44)}${format(evaluatePlainBm25(dataset))}`);
  console.log(`${'LexicalIndex defaults'.padEnd(44)}${format(evaluateIndex(dataset, {}))}`);
}

const docsRoot = join(dataRoot, 'docs-fastapi');
const chunks = chunkDocs(docsRoot);
const items = linkQueries(docsRoot, chunks);
const sectionItems = items.filter((item) => item.section);
console.log(`\ndocs-fastapi link-text known items: ${chunks.length} chunks, ${items.length} queries (${sectionItems.length} to sections)`);
console.log(header);
console.log(`${'LexicalIndex defaults, all links'.padEnd(44)}${format(evaluateDocs(chunks, items, {}))}`);
console.log(`${'LexicalIndex defaults, section links'.padEnd(44)}${format(evaluateDocs(chunks, sectionItems, {}))}`);

if (process.argv.includes('--sweep')) {
  const { title, headings } = defaultLexicalIndexOptions;
  const docsColumns = (options: Partial<LexicalIndexOptions>): string => {
    const all = evaluateDocs(chunks, items, options);
    const sections = evaluateDocs(chunks, sectionItems, options);
    return [all.ndcg10, all.mrr10, sections.ndcg10, sections.mrr10].map((value) => value.toFixed(3).padStart(9)).join('');
  };
  const sweepHeader = (first: string): string =>
    `${first.padEnd(34)}${['msmarco', 'vaswani', 'docs', 'docs MRR', 'section', 'sec. MRR'].map((name) => name.padStart(9)).join('')}`;
  console.log('\nk1 and body b, nDCG@10 (docs keep the default title and heading settings)');
  console.log(sweepHeader('setting'));
  for (const k1 of [0.9, 1.2, 1.5]) {
    for (const b of [0.3, 0.4, 0.5, 0.6, 0.75]) {
      const options = { k1, body: { weight: 1, b } };
      const beir = datasets.map((dataset) => evaluateIndex(dataset, options).ndcg10.toFixed(3).padStart(9)).join('');
      console.log(`${`k1 ${k1} body b ${b}`.padEnd(34)}${beir}${docsColumns(options)}`);
    }
  }
  console.log('\nfield weights, docs-fastapi link texts only');
  console.log(`${'setting'.padEnd(52)}${['docs', 'docs MRR', 'section', 'sec. MRR'].map((name) => name.padStart(9)).join('')}`);
  for (const titleWeight of [1, 1.5, 2, 2.5, 3, 4, 6]) {
    for (const headingWeight of [1, 1.5, 2, 3]) {
      const options = { title: { ...title, weight: titleWeight }, headings: { ...headings, weight: headingWeight } };
      console.log(`${`title ${titleWeight} headings ${headingWeight}`.padEnd(52)}${docsColumns(options)}`);
    }
  }
  console.log('\ntitle and headings b, docs-fastapi link texts only');
  for (const fieldB of [0, 0.3, 0.5, 0.75, 0.9]) {
    const options = { title: { ...title, b: fieldB }, headings: { ...headings, b: fieldB } };
    console.log(`${`title and headings b ${fieldB}`.padEnd(52)}${docsColumns(options)}`);
  }
}
