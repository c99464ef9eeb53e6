// The front-matter block at the top of each stored Markdown document (title, origin, content hash, ingest time).

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

/** The text of the first ATX heading, without closing hashes or an attribute list such as MkDocs' `{ #anchor }`. */
export function firstHeading(body: string): string | undefined {
  const line = /^#{1,6}[ \t]+(.+)$/m.exec(body)?.[1];
  if (line === undefined) return undefined;
  // Trimmed by scanning, not by patterns such as `(.+?)[ \t#]*$`: they backtrack over a long run of `#` or spaces
  // (a 40,000-character heading line took 2 s, a 6 MB one would never finish).
  let end = line.length;
  while (end > 1 && ' \t#'.includes(line.charAt(end - 1))) end -= 1;
  let text = line.slice(0, end).trimEnd();
  const attributesStart = text.endsWith('}') ? text.lastIndexOf('{') : -1;
  if (attributesStart !== -1 && !text.slice(attributesStart + 1, -1).includes('}')) text = text.slice(0, attributesStart);
  return text.trim() || undefined;
}

/** Splits a stored (or hand-written) document into its front matter and Markdown body. */
export function parseDocument(text: string): { frontMatter: FrontMatter; body: string } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const match = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(normalized);
  if (match === null) return { frontMatter: {}, body: normalized.trim() };
  const fields: Record<string, string> = {};
  for (const line of (match[1] ?? '').split('\n')) {
    const separator = line.indexOf(':');
    if (separator <= 0 || /^\s/.test(line)) continue;
    fields[line.slice(0, separator).trim()] = parseScalar(line.slice(separator + 1));
  }
  const frontMatter: { -readonly [K in keyof FrontMatter]: FrontMatter[K] } = {};
  for (const field of Object.keys(keys) as (keyof FrontMatter)[]) {
    const value = fields[keys[field]];
    if (value !== undefined && value !== '') frontMatter[field] = value;
  }
  return { frontMatter, body: normalized.slice(match[0].length).trim() };
}
