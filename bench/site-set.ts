// A development site (bench/sites.ts) as an IR test set: its files loaded the way a file ingest loads them (a PDF
// converted to Markdown), its question file's judged questions as queries. Each page is a document; a document whose
// judgements name sections ("manual.pdf#3.2 Shell Commands") is ranked per section, a chunk standing for the section of
// its last heading. Judged keys are matched to those units with matchesPage, as `knowledge-agent eval` matches results.
import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { matchesPage, type EvalQuestion } from '../src/cli/evaluation.js';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { DocumentConverter } from '../src/ingest/document-converter.js';
import { loadSource } from '../src/ingest/load-source.js';
import type { BeirSet } from './beir-set.js';
import type { CorpusDocument } from './chunked-corpus.js';
import { siteQuestions, type Site } from './sites.js';

/** The unit a chunk is judged as: its document, or for a document judged per section, the section of its last heading. */
type UnitOf = (documentId: string, headingPath: readonly string[]) => string;

/** Questions scored for retrieval: judged pages, neither out of scope nor a follow-up. */
function retrievalQuestions(questions: readonly EvalQuestion[]): EvalQuestion[] {
  return questions.filter(
    (question) =>
      question.out_of_scope !== true &&
      (question.earlier_questions ?? []).length === 0 &&
      Object.values(question.pages ?? {}).some((grade) => grade > 0),
  );
}

async function loadPages(site: Site): Promise<CorpusDocument[]> {
  const root = realpathSync(site.directory);
  const limits = { maxSourceBytes: 64 << 20, maxTextBytes: 64 << 20, downloadTimeoutMs: 0, allowPrivateUrls: false, fileRoots: [root] };
  const converter = new DocumentConverter({ workers: 1, timeoutMs: 300_000 });
  try {
    const pages: CorpusDocument[] = [];
    for (const file of await site.files()) {
      const loaded = await loadSource({ kind: 'file', path: realpathSync(file) }, limits, converter);
      const text = loaded.markdown.trim();
      // Pages without text (stubs a doc-site generator fills in) are refused by an ingest too.
      if (text !== '') pages.push({ id: relative(root, realpathSync(file)), title: loaded.title, text });
    }
    return pages;
  } finally {
    await converter.close();
  }
}

export async function loadSiteSet(site: Site): Promise<BeirSet> {
  const documents = await loadPages(site);
  const questions = retrievalQuestions(siteQuestions(site));
  const keys = questions.flatMap((question) => Object.keys(question.pages ?? {}));
  const sectioned = new Set(keys.filter((key) => key.includes('#')).map((key) => key.slice(0, key.indexOf('#'))));
  const unitOf: UnitOf = (documentId, headingPath) =>
    [...sectioned].some((page) => matchesPage({ origin: documentId, headings: [] }, page))
      ? `${documentId}#${headingPath.at(-1) ?? ''}`
      : documentId;
  // Every unit with the heading it is matched by (the chunker's headings, as a search result reports them).
  const units = new Map<string, { origin: string; headings: string[] }>();
  for (const document of documents) {
    for (const chunk of chunkMarkdown(document.text)) {
      const unit = unitOf(document.id, chunk.headingPath);
      if (!units.has(unit))
        units.set(unit, { origin: document.id, headings: unit === document.id ? [] : [chunk.headingPath.at(-1) ?? ''] });
    }
  }
  const judgments = new Map(
    questions.map((question) => {
      const judged = new Map<string, number>();
      for (const [key, grade] of Object.entries(question.pages ?? {})) {
        const matching = [...units].filter(([, located]) => matchesPage(located, key)).map(([unit]) => unit);
        if (matching.length === 0) throw new Error(`${question.id} judges ${key}, which is no page or section of ${site.name}`);
        for (const unit of matching) judged.set(unit, Math.max(grade, judged.get(unit) ?? 0));
      }
      return [question.id, judged] as const;
    }),
  );
  return {
    name: site.name,
    directory: site.directory,
    documents,
    queries: questions.map((question) => ({ id: question.id, text: question.question })),
    judgments,
    ...(sectioned.size > 0 ? { unitOf } : {}),
  };
}
