// How well a search's best hits match the question, measured the same way on any namespace: the evidence the agent's
// "not in these docs" check weighs (agent/coverage.ts). A ranking always returns something; this says whether it is
// about the question at all.
import { cosineSimilarity } from '../indexes/cosine.js';
import { inverseDocumentFrequency } from '../indexes/bm25.js';
import { queryTerms, tokenize } from '../indexes/tokenize.js';
import type { ScoredHit } from '../indexes/scored-hit.js';
import type { RetrievedChunk } from './retrieved-chunk.js';

export interface RelevanceEvidence {
  /**
   * The largest share of the question's words, each weighed by its rarity in the namespace, that one hit holds in its
   * title, headings and text: 0 to 1. A word the namespace never uses weighs most, so "JVM heap size" asked of Python
   * docs stays low however well "size" matches.
   */
  readonly termCoverage: number;
  /** The best cosine similarity of the question's embedding to a hit's; absent when the ranking used no embeddings. */
  readonly similarity?: number;
  /**
   * How far the best hit's similarity stands above the mean similarity of the question's 30 nearest chunks. Steadier
   * across namespaces than the similarity itself: some collections are close to every question of their field.
   */
  readonly similarityMargin?: number;
  /** The embedding model the similarity comes from: similarities of different models are on different scales. */
  readonly embeddingModel?: string;
  /**
   * The options the question names that no chunk of the namespace mentions, when there are any: a command-line option
   * ("--deep-verify") or a keyword option set to a literal ("exclude_empty=True", "ttl = 300"), as written. Docs that
   * never name an option cannot say what it does.
   */
  readonly unknownOptions?: readonly string[];
  /**
   * The names the question's own prose uses that no chunk of the namespace mentions, when there are any: a product, a
   * format or an acronym ("Zappa", "Avro", "JWT", "gRPC"), an option it calls by its kind ("the ttl prop"), and the
   * identifiers it uses, quoted or not: snake_case and camelCase names (`ping_interval`, `beforeEach`), and others
   * missing from a family the namespace names (`UV_DOWNLOAD_RETRIES_PER_HOST`, `v-lazy`). Docs that never name a thing
   * rarely answer a question about it, but an answerable question may name the asker's setting too ("on Kubuntu"), so
   * this weighs against the question rather than deciding (agent/coverage.ts).
   */
  readonly unknownNames?: readonly string[];
}

/** What the evidence is measured against: the namespace's statistics and the hits' vectors. */
export interface RelevanceContext {
  readonly chunkCount: number;
  readonly chunksWithTerm: (term: string) => number;
  /** How many index terms start with `prefix`, counted up to `atMost`. */
  readonly termsStartingWith: (prefix: string, atMost: number) => number;
  /** Which of `terms` (index terms) a chunk holds in its title, headings or text. */
  readonly termsHeld: (chunkId: string, terms: readonly string[]) => readonly boolean[];
  readonly vectorOf: (chunkId: string) => Float32Array | undefined;
}

/** An option as a command line spells it: two dashes, then its name ("--older-than", not "it--so" or "---"). */
const commandLineOption = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/gi;

/**
 * A keyword option set to a literal, as code and configuration files spell it: `exclude_empty=True`, `ttl = 300`,
 * `mode="strict"`. Not one: a shell variable set from another ("str=$1"), a URL's query ("?page=2"), and an
 * environment variable (`DEBUG=1`, upper case: often the asker's own).
 */
const keywordOption = /(?<![\w$.?&-])([A-Za-z_]*[a-z][\w-]*)[ \t]?=[ \t]?(?=True\b|False\b|None\b|true\b|false\b|null\b|-?\d|["'])/g;

/** The name called with the parenthesis that is open at `index` of `text`, if one is: "Field" in `Field(encrypt=True`. */
function openCallee(text: string, index: number): string | undefined {
  let depth = 0;
  for (let position = index - 1; position >= 0; position--) {
    const character = text[position];
    if (character === ')') depth++;
    else if (character === '(' && depth-- === 0) return /[A-Za-z_][\w]*$/.exec(text.slice(0, position))?.[0];
  }
  return undefined;
}

/** True when no chunk of the namespace holds `name`, an option or a name, as one term ("deep-verify", "Zappa"). */
function neverMentioned(name: string, context: RelevanceContext): boolean {
  const [term] = tokenize(name);
  return term !== undefined && context.chunksWithTerm(term) === 0;
}

/**
 * The options of `query` that no chunk of the namespace holds (an option's name is one term: "deep-verify",
 * "exclude_empty"). A keyword option passed to a name the namespace does not know either (`Student(nickname="Al")`)
 * is the asker's own code, not an option the docs should describe.
 */
function unknownOptionsOf(query: string, context: RelevanceContext): string[] {
  const unknown = (name: string) => neverMentioned(name, context);
  const commandLine = query.match(commandLineOption) ?? [];
  const keywords = [...query.matchAll(keywordOption)].flatMap((match) => {
    const callee = openCallee(query, match.index);
    return callee !== undefined && unknown(callee) ? [] : [match[1] as string];
  });
  return [...new Set([...commandLine, ...keywords])].filter(unknown);
}

/**
 * What the question quotes (code, 'messages', "strings"): the asker's own words, not the names of its prose. A quote
 * that ends a sentence still ends it.
 */
const quoted = /`[^`]*`|'[^'\n]*'|"[^"\n]*"/g;
const withoutQuotes = (text: string) => text.replace(quoted, (quote) => (/[.?!]\W?$/.test(quote) ? ' .' : ' '));

/** An acronym with a short lower-case prefix: "gRPC", "macOS", "iOS". */
export const prefixedAcronym = /[a-z]{1,3}[A-Z]{2,}s?/;

/**
 * A name in prose: a capitalised word, an acronym, a product's CamelCase name or an acronym with a short lower-case
 * prefix, that does not open a sentence, is not part of an identifier, a path or a call, and is not the asker's own
 * ("Zappa", "JWT", "SDKs", "PyInstaller", "gRPC", "macOS"; not "What", "Field(", "README.md", "Content-Type",
 * "createApp(MainApp)", "my Rectangle", an error's class such as "ModuleNotFoundError").
 */
const proseName = new RegExp(
  String.raw`(?<![\w.\-/@$<=])(?<!\w\()(?<![.?!:]\s)(?<!\b(?:[Mm]y|[Oo]ur)\s)(?<!^)(?:[A-Z][a-z]+|[A-Z]{2,}s?|[A-Z][a-z]+[A-Z][A-Za-z]*(?<!Error|Exception|Warning)|${prefixedAcronym.source})(?![\w\-(]|\.\w)`,
  'g',
);

/**
 * An identifier of a shape a product names its own things with, and for the shapes an asker names their own things
 * with too, its family: an environment variable (`UV_` of `UV_CACHE_DIR`), a directive (`v-` of `v-model`; a longer
 * prefix is English more often: "re-assign"). A snake_case or camelCase name has none (no group captures): an API's
 * options, hooks and signals are named so (`ping_interval`, `post_save`, `response_model_exclude_none`, `beforeEach`,
 * `storeToRefs`, `onBeforeRender`), and one the docs never mention is rarely theirs, with or without relatives
 * (measured on the development sets, held out: see docs/evaluation.md). Not in a path ("~/uv-venvs"), nor a camelCase
 * property of the asker's object (`user.firstName`) or a camelCase function called in their code (`fetchData()`); a
 * snake_case function of a module is one (`pydantic.validate_file`).
 */
const productIdentifier =
  /(?<![\w$/~-])(?:(?<!\.)(?:([A-Z][A-Z0-9]*_)[A-Z0-9_]*[A-Z0-9]|([a-z]-)[a-z][a-z-]*[a-z]|[a-z]+(?:[A-Z][a-z]+)+(?!\())|(?<![^A-Za-z]\.|^\.)[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])(?![\w/-])/g;

/** Known identifiers of a family that make a missing member a made-up one rather than the asker's own. */
const familySize = 3;

/**
 * The identifiers of `query`, quoted or not, that the namespace never mentions: a snake_case or camelCase name, and one
 * of another shape when the namespace names several others of its family: `UV_DOWNLOAD_RETRIES_PER_HOST` beside uv's
 * fifty `UV_` variables, `v-lazy` beside Vue's directives. Docs that list a family's members and not this one do not
 * describe it. A plural of a known member ("two v-models") is that member.
 */
function unknownIdentifiersOf(query: string, context: RelevanceContext): string[] {
  // Each identifier once: the family's lookup scans the vocabulary.
  const families = new Map([...query.matchAll(productIdentifier)].map((match) => [match[0], match.slice(1).find(Boolean)]));
  return [...families].flatMap(([name, family]) => {
    if (!neverMentioned(name, context) || (name.endsWith('s') && !neverMentioned(name.slice(0, -1), context))) return [];
    return family === undefined || context.termsStartingWith(family.toLowerCase(), familySize) >= familySize ? [name] : [];
  });
}

/**
 * A name the question gives its kind, as prose writes an option's or a command's name: "the ttl prop", "a persist
 * option", "the `uv doctor` command" (the last word of quoted code).
 */
const namedByKind =
  /\b(?:the|a|an|its|any)\s+(?:([a-z][a-z0-9_]*)|`(?:[^`\n]*\s)?([a-z][\w-]*)`)\s+(?:option|prop|attribute|flag|argument|parameter|setting|command|subcommand|builtin|directive|hook|modifier|keyword|field|method|key)s?\b/g;

/** The names of `query` the namespace never mentions, but for those already reported as options (`exclude_empty=True`). */
function unknownNamesOf(query: string, context: RelevanceContext, options: readonly string[]): string[] {
  const prose = withoutQuotes(query);
  const byKind = [...query.matchAll(namedByKind)].map((match) => (match[1] ?? match[2]) as string);
  const names = [...(prose.match(proseName) ?? []), ...byKind].filter((name) => neverMentioned(name, context));
  return [...new Set([...names, ...unknownIdentifiersOf(query, context)])].filter((name) => !options.includes(name));
}

/** Nearest chunks the similarity margin is measured against. */
const backgroundSize = 30;

export function relevanceEvidence(
  query: string,
  hits: readonly RetrievedChunk[],
  context: RelevanceContext,
  /** The query's vector, the model that embedded it, and its nearest chunks by cosine, best first. */
  embedded?: { readonly vector: Float32Array; readonly model: string; readonly nearest: readonly ScoredHit[] },
): RelevanceEvidence {
  const queryVector = embedded?.vector;
  const weights = queryTerms(query).map((term) => ({
    term,
    weight: inverseDocumentFrequency(Math.max(1, context.chunkCount), context.chunksWithTerm(term)),
  }));
  const total = weights.reduce((sum, { weight }) => sum + weight, 0);
  let termCoverage = 0;
  let similarity: number | undefined;
  const terms = weights.map(({ term }) => term);
  for (const { chunk } of hits) {
    if (total > 0) {
      const held = context.termsHeld(chunk.id, terms).reduce((sum, holds, index) => (holds ? sum + (weights[index]?.weight ?? 0) : sum), 0);
      termCoverage = Math.max(termCoverage, held / total);
    }
    const vector = queryVector === undefined ? undefined : context.vectorOf(chunk.id);
    if (queryVector !== undefined && vector !== undefined) similarity = Math.max(similarity ?? -1, cosineSimilarity(queryVector, vector));
  }
  const unknownOptions = unknownOptionsOf(query, context);
  const unknownNames = unknownNamesOf(query, context, unknownOptions);
  const lexical = {
    termCoverage,
    ...(unknownOptions.length === 0 ? {} : { unknownOptions }),
    ...(unknownNames.length === 0 ? {} : { unknownNames }),
  };
  if (similarity === undefined || embedded === undefined) return lexical;
  const background = embedded.nearest.slice(0, backgroundSize);
  const backgroundMean = background.reduce((sum, hit) => sum + hit.score, 0) / Math.max(1, background.length);
  return { ...lexical, similarity, similarityMargin: similarity - backgroundMean, embeddingModel: embedded.model };
}
