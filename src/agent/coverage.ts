// Whether the docs answer the question: decided before the model is asked, from the search's relevance evidence (a
// floor fitted across documentation sites, see bench/abstention.ts), and after it answered, from its own words.
import { localEmbeddingModelId } from '../providers/local-embedding-model.js';
import { pageLabel } from '../search/page-label.js';
import { prefixedAcronym, type RelevanceEvidence } from '../search/relevance.js';
import type { Snippet } from '../search/snippet.js';

export interface RelevanceFloor {
  /**
   * With the embedding model the floor was fitted on, the question is covered when similarityMargin + termWeight *
   * termCoverage reaches `combined`.
   */
  readonly combined: number;
  readonly termWeight: number;
  /** Taken from that sum when the question names something the namespace never mentions (`unknownNames`). */
  readonly unknownNamePenalty: number;
  /**
   * With that model, the question is not covered either when no hit's similarity reaches `similarity`, however much
   * the best one stands out: a question of another field altogether ("a recipe for banana bread") finds only chunks
   * far from it, one of them a little less far than the rest.
   */
  readonly similarity: number;
  /** Without embeddings, or with a model whose similarities were not fitted (their scale differs), when the term coverage reaches `lexical`. */
  readonly lexical: number;
}

/** Fitted by leave-one-site-out over the development sets (bench/abstention.ts prints the fit and each held-out site). */
export const relevanceFloor: RelevanceFloor = { combined: 0.12, termWeight: 0.6, unknownNamePenalty: 0.3, similarity: 0.28, lexical: 0.18 };

/** The embedding models whose similarities the floor was fitted on. */
const fittedModels: ReadonlySet<string> = new Set([localEmbeddingModelId]);

export function passesRelevanceFloor(evidence: RelevanceEvidence, floor: RelevanceFloor = relevanceFloor): boolean {
  if (evidence.unknownOptions !== undefined && evidence.unknownOptions.length > 0) return false;
  if (evidence.similarityMargin === undefined || evidence.similarity === undefined || !fittedModels.has(evidence.embeddingModel ?? ''))
    return evidence.termCoverage >= floor.lexical;
  const penalty = evidence.unknownNames !== undefined && evidence.unknownNames.length > 0 ? floor.unknownNamePenalty : 0;
  return (
    evidence.similarity >= floor.similarity &&
    evidence.similarityMargin + floor.termWeight * evidence.termCoverage - penalty >= floor.combined
  );
}

/**
 * An opening sentence that says the docs do not answer: the extractive model's "does not answer this directly", and
 * what the prompt asks a language model to begin with ("The documentation does not cover this").
 */
const notCoveredOpening =
  /\b(?:does not|doesn't|do not|don't|did not|didn't)\s+(?:seem to\s+)?(?:cover|answer|mention|describe|document|explain|include|contain|say)\b|\bnot\s+(?:covered|mentioned|documented|described|answered)\b|\bno\s+(?:information|mention|documentation)\b|\bcould(?:n't| not)\s+find\b/i;

/** True when an answer opens by saying the docs do not answer and cites nothing: the model's own "not covered". */
export function saysNotCovered(answer: string, citedCount: number): boolean {
  if (citedCount > 0) return false;
  const opening = /^[\s\S]{0,300}?[.!?](?:\s|$)/.exec(answer.trim())?.[0] ?? answer.slice(0, 300);
  return notCoveredOpening.test(opening);
}

const wholePrefixedAcronym = new RegExp(`^${prefixedAcronym.source}$`);

/**
 * The answer when the floor decides the docs do not cover the question: one plain sentence, which names the options
 * and names the question asks about that the docs never mention.
 */
export function notCoveredSentence(namespace: string, evidence?: Pick<RelevanceEvidence, 'unknownOptions' | 'unknownNames'>): string {
  // Options and identifiers (`v-lazy`, `UV_NO_SYNC`, `ttl`) as code, names ("Zappa", "PyInstaller", "gRPC", "macOS") as words.
  const isWord = (name: string) => /^[A-Z][a-z]+[A-Z]/.test(name) || wholePrefixedAcronym.test(name);
  const asCode = (name: string) => (/[-_.]|[a-z][A-Z]|^[a-z\d]+$/.test(name) && !isWord(name) ? `\`${name}\`` : name);
  const named = [...(evidence?.unknownOptions ?? []).map((option) => `\`${option}\``), ...(evidence?.unknownNames ?? []).map(asCode)];
  if (named.length > 0)
    return `The "${namespace}" documentation never mentions ${named.join(', ')}: none of the passages I found answers this.`;
  return `The "${namespace}" documentation does not seem to cover this: none of the passages I found answers it.`;
}

const maxSuggestions = 3;

/** The closest pages found, offered as suggestions (not cited as an answer); empty when nothing was found. */
export function closestPages(snippets: readonly Snippet[]): string {
  const labels = [...new Set(snippets.map(pageLabel))].slice(0, maxSuggestions);
  return labels.length === 0 ? '' : `The closest pages, in case they help:\n${labels.map((label) => `- ${label}`).join('\n')}`;
}
