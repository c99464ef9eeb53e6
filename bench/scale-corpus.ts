// Deterministic Markdown documents for the scale benchmark (bench/scale.ts), assembled from the real text in
// ../shared/data: MS MARCO passages, Vaswani abstracts and FastAPI documentation pages, repeated and perturbed with a
// seeded generator (document n is always the same text), so any number of chunks can be built from them.
// Not run on its own: bench/scale.ts and bench/scale-child.ts use it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../test/support/durability-documents.js';
import { sharedDataDirectory } from './shared-data.js';

export const defaultDataRoot = sharedDataDirectory;

export interface ScaleDocument {
  /** Unique per document number: a text source is upserted by its title. */
  readonly title: string;
  readonly text: string;
}

export interface ScaleCorpus {
  /** Document `number`: sections of headings and paragraphs that the service chunks into ~10-20 chunks. */
  document(number: number): ScaleDocument;
  /** A small document (1-3 chunks), for timing single ingests into a large namespace. */
  smallDocument(number: number): ScaleDocument;
  /** MS MARCO and Vaswani queries, then the FastAPI questions. */
  readonly queries: readonly string[];
}

/**
 * Characters per chunk, on average: the service cuts at most 1,200 characters with 150 of overlap, at paragraph
 * boundaries, and a heading always starts a new chunk. Only an estimate: the build counts the chunks actually stored.
 */
const charactersPerChunk = 850;
const sectionChunks = (length: number): number => Math.max(1, Math.ceil(length / charactersPerChunk));

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const between = (random: Random, low: number, high: number): number => low + Math.floor(random() * (high - low + 1));

/** ~10% of words dropped and ~5% replaced by a word of the same source, as in bench/lexical-speed.ts. */
function perturb(words: readonly string[], random: Random, vocabulary: readonly string[]): string {
  const kept: string[] = [];
  for (const word of words) {
    const roll = random();
    if (roll < 0.1) continue;
    kept.push(roll < 0.15 ? pick(random, vocabulary) : word);
  }
  return kept.join(' ');
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface PassageSource {
  readonly passages: readonly (readonly string[])[];
  readonly vocabulary: readonly string[];
}

function readPassages(file: string): PassageSource {
  const passages = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { text: string }).text.split(/\s+/).filter((word) => word !== ''))
    .filter((words) => words.length >= 5);
  return { passages, vocabulary: [...new Set(passages.flat())] };
}

type Block =
  | { readonly kind: 'heading'; readonly level: number; readonly text: string }
  | { readonly kind: 'prose' | 'code'; readonly text: string };

interface Page {
  readonly title: string;
  readonly blocks: readonly Block[];
}

function markdownFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? markdownFiles(join(directory, entry.name)) : entry.name.endsWith('.md') ? [join(directory, entry.name)] : [],
    )
    .sort();
}

/** Headings, prose blocks and fenced code blocks of one page (heading anchors `{ #id }` removed). */
function parsePage(markdown: string): Page {
  const blocks: Block[] = [];
  const lines = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').split('\n');
  let title = '';
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'prose', text: paragraph.join('\n') });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const heading = /^(#{1,6})\s+(.*?)\s*(?:\{[^{}]*\})?\s*$/.exec(line);
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (heading !== null) {
      flush();
      const text = heading[2] as string;
      if (title === '' && heading[1] === '#') title = text;
      else blocks.push({ kind: 'heading', level: (heading[1] as string).length, text });
    } else if (fence !== null) {
      flush();
      const code = [line];
      while (++index < lines.length) {
        code.push(lines[index] as string);
        if ((lines[index] as string).trim().startsWith(fence[1] as string)) break;
      }
      blocks.push({ kind: 'code', text: code.join('\n') });
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return { title, blocks };
}

export function loadScaleCorpus(dataRoot: string = defaultDataRoot): ScaleCorpus {
  const marco = readPassages(join(dataRoot, 'msmarco-trecdl-5k', 'corpus.jsonl'));
  const vaswani = readPassages(join(dataRoot, 'vaswani-npl', 'corpus.jsonl'));
  // The release notes are a 700 kB list of changes, unlike the rest of the docs; left out.
  const pages = markdownFiles(join(dataRoot, 'docs-fastapi'))
    .filter((file) => !file.endsWith('release-notes.md'))
    .map((file) => parsePage(readFileSync(file, 'utf8')))
    .filter((page) => page.title !== '' && page.blocks.length > 0);
  const fastapiVocabulary = [
    ...new Set(pages.flatMap((page) => page.blocks.flatMap((block) => (block.kind === 'prose' ? block.text.split(/\s+/) : [])))),
  ].filter((word) => /^[A-Za-z][a-z]+$/.test(word));

  const queryTexts = (file: string) =>
    readFileSync(join(dataRoot, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { text: string }).text);
  const questions = (JSON.parse(readFileSync(new URL('./fastapi-questions.json', import.meta.url), 'utf8')) as { question: string }[]).map(
    (entry) => entry.question,
  );
  const queries = [...queryTexts('msmarco-trecdl-5k/queries.jsonl'), ...queryTexts('vaswani-npl/queries.jsonl'), ...questions];

  /** Sections of perturbed passages under headings made from the start of other passages. */
  function passageDocument(source: PassageSource, random: Random, number: number, targetChunks: number): ScaleDocument {
    const title = `${capitalized(perturb(pick(random, source.passages).slice(0, between(random, 3, 6)), random, source.vocabulary))} (${number})`;
    const sections: string[] = [];
    let chunks = 0;
    while (chunks < targetChunks) {
      const level = sections.length === 0 || random() < 0.6 ? 2 : 3;
      const heading = capitalized(perturb(pick(random, source.passages).slice(0, between(random, 2, 5)), random, source.vocabulary));
      const sectionLength = between(random, 900, 3000);
      const paragraphs: string[] = [];
      let length = 0;
      while (length < sectionLength) {
        const paragraph = Array.from({ length: between(random, 1, 3) }, () =>
          perturb(pick(random, source.passages), random, source.vocabulary),
        ).join(' ');
        paragraphs.push(paragraph);
        length += paragraph.length + 2;
      }
      sections.push(`${'#'.repeat(level)} ${heading}\n\n${paragraphs.join('\n\n')}`);
      chunks += sectionChunks(length);
    }
    return { title, text: sections.join('\n\n') };
  }

  /** A run of consecutive blocks of FastAPI pages from a random place, prose perturbed, headings and code kept. */
  function pageDocument(random: Random, number: number, targetChunks: number): ScaleDocument {
    let page = pick(random, pages);
    const title = `${page.title} (${number})`;
    let position = Math.floor(random() * page.blocks.length);
    const parts: string[] = [];
    let chunks = 0;
    let sectionLength = 0;
    while (parts.length === 0 || chunks + sectionChunks(sectionLength) < targetChunks) {
      if (position >= page.blocks.length) {
        page = pick(random, pages);
        position = 0;
        parts.push(`## ${page.title}`);
        chunks += sectionChunks(sectionLength);
        sectionLength = 0;
      }
      const block = page.blocks[position++] as Block;
      if (block.kind === 'heading') {
        chunks += sectionChunks(sectionLength);
        sectionLength = 0;
      }
      const text =
        block.kind === 'heading'
          ? `${'#'.repeat(Math.max(2, block.level))} ${block.text}`
          : block.kind === 'prose' && /^[A-Za-z]/.test(block.text)
            ? perturb(block.text.split(' '), random, fastapiVocabulary)
            : block.text;
      if (text.trim() === '') continue;
      parts.push(text);
      sectionLength += text.length + 2;
    }
    return { title, text: parts.join('\n\n') };
  }

  function generate(number: number, targetChunks: number): ScaleDocument {
    const random = seededRandom(0x5eed ^ Math.imul(number + 1, 0x9e3779b1));
    const roll = random();
    if (roll < 0.35) return passageDocument(marco, random, number, targetChunks);
    if (roll < 0.7) return passageDocument(vaswani, random, number, targetChunks);
    return pageDocument(random, number, targetChunks);
  }

  return {
    document: (number) => generate(number, between(seededRandom(number * 7 + 3), 10, 20)),
    // Numbered apart from the build's documents, so their titles and texts are new to the namespace.
    smallDocument: (number) => generate(1_000_000_000 + number, between(seededRandom(number * 7 + 5), 1, 3)),
    queries,
  };
}
