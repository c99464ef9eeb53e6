// The front-matter block at the top of each stored Markdown document (title, origin, content hash, ingest time), and
// the title of a document that has none.
import { basename, dirname } from 'node:path';
import {
  closesFence,
  isYamlDelimiter,
  MarkdownLineClassifier,
  withoutAttributeLists,
  type FenceOpening,
} from '../markdown/markdown-lines.js';

export interface FrontMatter {
  readonly title?: string;
  /** The document's origin (StoredDocument.origin), written `source`. */
  readonly origin?: string;
  readonly hash?: string;
  readonly ingestedAt?: string;
}

const keys = { title: 'title', origin: 'source', hash: 'content_hash', ingestedAt: 'ingested_at' } as const;

/** Values are written as JSON strings, which are valid YAML double-quoted scalars. */
export function renderDocument(frontMatter: FrontMatter, body: string): string {
  const lines = (Object.keys(keys) as (keyof FrontMatter)[])
    .filter((field) => frontMatter[field] !== undefined)
    .map((field) => `${keys[field]}: ${JSON.stringify(frontMatter[field])}`);
  return `---\n${lines.join('\n')}\n---\n\n${body.trimEnd()}\n`;
}

function parseScalar(raw: string): string {
  const value = raw.trim();
  if (value.startsWith('"')) {
    try {
      return String(JSON.parse(value));
    } catch {
      return value.slice(1, value.endsWith('"') ? -1 : undefined);
    }
  }
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) return value.slice(1, -1).replaceAll("''", "'");
  return value;
}

/**
 * The page's title heading: its first level-1 ATX heading outside fenced code (a `# comment` in a shell example is
 * none), or its first heading of any level when nothing comes before it; without closing hashes or an attribute list
 * such as MkDocs' `{ #anchor }`. Undefined when there is none or it is empty. A lower heading after the page's opening
 * text names a section, not the page: MkDocs pages often have no level-1 heading (the site's navigation titles them).
 */
export function titleHeading(body: string): string | undefined {
  const classifier = new MarkdownLineClassifier();
  let fence: FenceOpening | undefined;
  let textBefore = false;
  for (const line of body.split('\n')) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    const classified = classifier.classify(line);
    if (classified.kind === 'fence') fence = classified.fence;
    else if (classified.kind === 'heading' && (classified.heading.level === 1 || !textBefore))
      return withoutAttributeLists(classified.heading.text).trim() || undefined;
    if (classified.kind !== 'blank') textBefore = true;
  }
  return undefined;
}

/** The YAML between a `---` first line and the next `---` line, and where the body starts after it. */
function frontMatterBlock(text: string): { yaml: string; bodyStart: number } | undefined {
  const firstEnd = text.indexOf('\n');
  if (firstEnd === -1 || !isYamlDelimiter(text.slice(0, firstEnd))) return undefined;
  for (let start = firstEnd + 1; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const lineEnd = end === -1 ? text.length : end;
    if (isYamlDelimiter(text.slice(start, lineEnd))) return { yaml: text.slice(firstEnd + 1, start), bodyStart: lineEnd };
    start = lineEnd + 1;
  }
  return undefined;
}

/** Splits a stored (or hand-written) document into its front matter and Markdown body. */
export function parseDocument(text: string): { frontMatter: FrontMatter; body: string } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const block = frontMatterBlock(normalized);
  if (block === undefined) return { frontMatter: {}, body: normalized.trim() };
  const fields: Record<string, string> = {};
  for (const line of block.yaml.split('\n')) {
    const separator = line.indexOf(':');
    if (separator <= 0 || /^\s/.test(line)) continue;
    fields[line.slice(0, separator).trim()] = parseScalar(line.slice(separator + 1));
  }
  const frontMatter: { -readonly [K in keyof FrontMatter]: FrontMatter[K] } = {};
  for (const field of Object.keys(keys) as (keyof FrontMatter)[]) {
    const value = fields[keys[field]];
    if (value !== undefined && value !== '') frontMatter[field] = value;
  }
  return { frontMatter, body: normalized.slice(block.bodyStart).trim() };
}

/**
 * A title from a file's name, for a document that names none of its own, as MkDocs titles such a page: without its
 * extension, dashes and underscores as spaces, the first letter capitalised ("errors/validation_errors.md":
 * "Validation errors"); the folder's name for an `index` or `README` page ("tutorial/index.md": "Tutorial"). Both an
 * ingested file and a `.md` file placed in a namespace's folder by hand are titled so.
 */
export function titleFromFileName(path: string): string {
  const name = basename(path).replace(/\.[a-z0-9]+$/i, '');
  const folder = basename(dirname(path));
  const chosen = /^(?:index|readme)$/i.test(name) && folder !== '' && folder !== '.' ? folder : name;
  const spaced = chosen.replace(/[-_]+/g, ' ').trim() || chosen;
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
