// Evaluation of a namespace against a question file, through the HTTP API as any client sees it: each question's
// search (retrieval metrics against graded page judgements) and its answer from generate (graded by key facts and
// cited pages, or, for a question the docs do not cover, whether it was refused). Used by `knowledge-agent eval` and
// by the answer benchmarks.
import { z } from 'zod';
import { mean, ndcgAt, recallAt, reciprocalRankAt } from '../search/metrics.js';
import { CliError } from './cli-error.js';
import type { KnowledgeAgentClient } from './client.js';

const questionSchema = z
  .object({
    id: z.string().trim().min(1).optional(),
    question: z.string().trim().min(1, 'must not be empty'),
    earlier_questions: z.array(z.string().trim().min(1)).optional(),
    pages: z.record(z.string().min(1), z.number().int().min(0).max(3)).optional(),
    key_facts: z.array(z.string().trim().min(1)).max(10).optional(),
    out_of_scope: z.boolean().optional(),
    kind: z.string().optional(),
  })
  .loose()
  .superRefine((question, context) => {
    const judged = Object.values(question.pages ?? {}).some((grade) => grade > 0);
    if (question.out_of_scope === true && (judged || (question.key_facts ?? []).length > 0))
      context.addIssue({ code: 'custom', message: 'an out_of_scope question has no pages or key_facts' });
    if (question.out_of_scope !== true && !judged && (question.key_facts ?? []).length === 0)
      context.addIssue({ code: 'custom', message: 'give pages (with a grade above 0), key_facts, or "out_of_scope": true' });
  });

export type EvalQuestion = z.infer<typeof questionSchema> & { readonly id: string };

/** Parses a question file (JSON Lines: one question per line; blank lines and lines starting with # are skipped). */
export function parseQuestionFile(text: string, fileName: string): EvalQuestion[] {
  const questions: EvalQuestion[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const where = `${fileName}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CliError(`${where} is not a JSON object (${(error as Error).message})`);
    }
    const parsed = questionSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? `"${issue.path.join('.')}" ` : '';
      throw new CliError(`${where}: ${field}${issue?.message ?? 'is not a valid question'}`);
    }
    const id = parsed.data.id ?? `line-${index + 1}`;
    if (ids.has(id)) throw new CliError(`${where}: the id "${id}" is used twice`);
    ids.add(id);
    questions.push({ ...parsed.data, id });
  });
  if (questions.length === 0) throw new CliError(`${fileName} holds no questions`);
  return questions;
}

/** A search result or cited snippet as the API reports it: where its document came from and its headings. */
interface Located {
  readonly origin: string;
  readonly headings: readonly string[];
}

/** A path or URL without its extension, a trailing index page or slash, `\` as `/`, lower case: how pages are compared. */
function normalizedPage(page: string): string {
  return page
    .replace(/\\/g, '/')
    .replace(/[?#].*$/, '')
    .replace(/\.(md|mdx|markdown|html?|txt|rst)$/i, '')
    .replace(/\/(index|readme)$/i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/**
 * Whether a result is the judged page `key`: its origin ends with the key's path ("guide/x.md" matches
 * "/docs/guide/x.md" and "https://docs.example.com/guide/x"); a key with "#Section" also needs that heading.
 */
export function matchesPage(result: Located, key: string): boolean {
  const hash = key.indexOf('#');
  const page = normalizedPage(hash === -1 ? key : key.slice(0, hash));
  const origin = normalizedPage(result.origin);
  if (!(origin === page || origin.endsWith(`/${page}`))) return false;
  if (hash === -1) return true;
  const section = key
    .slice(hash + 1)
    .trim()
    .toLowerCase();
  return result.headings.some((heading) => heading.trim().toLowerCase() === section);
}

/** The judged page a result is, or a key of its own (its origin and section) when it is none of them. */
function pageKey(result: Located, judged: readonly string[]): string {
  return judged.find((key) => matchesPage(result, key)) ?? `${result.origin}#${result.headings.at(-1) ?? ''}`;
}

export type AnswerGrade = 'good' | 'partial' | 'wrong' | 'refused';

export interface QuestionResult {
  readonly id: string;
  readonly question: string;
  readonly outOfScope: boolean;
  /** Judged pages in the order the search returned them (one entry per page), then other results' keys. */
  readonly retrieved: readonly string[];
  readonly ndcg10?: number;
  readonly recall10?: number;
  readonly reciprocalRank?: number;
  readonly grade: AnswerGrade;
  readonly covered: boolean;
  readonly factsFound: number;
  readonly citedPages: readonly string[];
  readonly answer: string;
}

export interface EvaluationSummary {
  readonly namespace: string;
  readonly mode: string;
  readonly retrieval: { readonly questions: number; readonly ndcg10: number; readonly recall10: number; readonly mrr10: number };
  readonly answers: {
    readonly questions: number;
    readonly good: number;
    readonly partial: number;
    readonly wrong: number;
    readonly refused: number;
  };
  readonly abstention: {
    readonly outOfScope: number;
    readonly outOfScopeRefused: number;
    readonly inScope: number;
    readonly inScopeRefused: number;
  };
  readonly questions: readonly QuestionResult[];
}

/**
 * An answer to an in-scope question is good when it cites a page that answers it (grade 2; any judged page when none
 * is graded 2) and holds at least half of its key facts; wrong when it cites no judged page and holds none of them;
 * refused when it says the docs do not cover the question; partial otherwise.
 */
export function gradeAnswer(question: EvalQuestion, answer: { text: string; covered: boolean; cited: readonly Located[] }): AnswerGrade {
  if (!answer.covered) return 'refused';
  const pages = Object.entries(question.pages ?? {}).filter(([, grade]) => grade > 0);
  const best = Math.max(0, ...pages.map(([, grade]) => grade));
  const cites = (minimum: number) =>
    answer.cited.some((result) => pages.some(([key, grade]) => grade >= minimum && matchesPage(result, key)));
  const facts = question.key_facts ?? [];
  const lower = answer.text.toLowerCase();
  const found = facts.filter((fact) => lower.includes(fact.toLowerCase())).length;
  const answering = pages.length === 0 ? found > 0 : cites(best);
  if (answering && found * 2 >= facts.length) return 'good';
  if (!cites(1) && found === 0) return 'wrong';
  return 'partial';
}

interface GenerateResponse {
  readonly text: string;
  readonly covered?: boolean;
  readonly toolCalls?: readonly { readonly result?: { readonly results?: readonly Located[] } }[];
}

interface SearchResponse {
  readonly mode: string;
  readonly results: readonly Located[];
}

export interface EvaluationOptions {
  readonly namespace: string;
  /** The search mode the retrieval metrics are measured with. */
  readonly mode: 'hybrid' | 'lexical' | 'embedding';
  readonly signal?: AbortSignal;
  /** Called after each question (progress). */
  readonly onQuestion?: (result: QuestionResult, index: number) => void;
}

const cutoff = 10;

function citedNumbers(text: string): number[] {
  return [...new Set([...text.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1])))];
}

export async function evaluate(
  client: KnowledgeAgentClient,
  questions: readonly EvalQuestion[],
  options: EvaluationOptions,
): Promise<EvaluationSummary> {
  const results: QuestionResult[] = [];
  let mode: string = options.mode;
  for (const [index, question] of questions.entries()) {
    const judged = Object.keys(question.pages ?? {});
    const judgements = new Map(Object.entries(question.pages ?? {}));
    const search = await client.json<SearchResponse>('/api/tools/searchDocs', {
      body: { namespace: options.namespace, query: question.question, limit: cutoff, mode: options.mode },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    mode = search.mode;
    const retrieved = [...new Set(search.results.map((result) => pageKey(result, judged)))];
    const messages: { role: 'user' | 'assistant'; content: string }[] = [];
    let response: GenerateResponse = { text: '' };
    for (const asked of [...(question.earlier_questions ?? []), question.question]) {
      messages.push({ role: 'user', content: asked });
      response = await client.json<GenerateResponse>('/api/agents/knowledge/generate', {
        body: { messages, toolParams: { namespace: options.namespace } },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      messages.push({ role: 'assistant', content: response.text });
    }
    const snippets = response.toolCalls?.[0]?.result?.results ?? [];
    const cited = citedNumbers(response.text).flatMap((number) => snippets[number - 1] ?? []);
    const covered = response.covered ?? true;
    const outOfScope = question.out_of_scope === true;
    const inScopeRetrieval = !outOfScope && judged.length > 0;
    const lower = response.text.toLowerCase();
    const result: QuestionResult = {
      id: question.id,
      question: question.question,
      outOfScope,
      retrieved,
      ...(inScopeRetrieval
        ? {
            ndcg10: ndcgAt(retrieved, judgements, cutoff),
            recall10: recallAt(retrieved, judgements, cutoff),
            reciprocalRank: reciprocalRankAt(retrieved, judgements, cutoff),
          }
        : {}),
      grade: outOfScope ? (covered ? 'wrong' : 'refused') : gradeAnswer(question, { text: response.text, covered, cited }),
      covered,
      factsFound: (question.key_facts ?? []).filter((fact) => lower.includes(fact.toLowerCase())).length,
      citedPages: [...new Set(cited.map((result) => pageKey(result, judged)))],
      answer: response.text,
    };
    results.push(result);
    options.onQuestion?.(result, index);
  }
  return summarize(options.namespace, mode, results);
}

export function summarize(namespace: string, mode: string, results: readonly QuestionResult[]): EvaluationSummary {
  const inScope = results.filter((result) => !result.outOfScope);
  const outOfScope = results.filter((result) => result.outOfScope);
  const judged = inScope.filter((result) => result.ndcg10 !== undefined);
  const count = (grade: AnswerGrade) => inScope.filter((result) => result.grade === grade).length;
  return {
    namespace,
    mode,
    retrieval: {
      questions: judged.length,
      ndcg10: mean(judged.map((result) => result.ndcg10 ?? 0)),
      recall10: mean(judged.map((result) => result.recall10 ?? 0)),
      mrr10: mean(judged.map((result) => result.reciprocalRank ?? 0)),
    },
    answers: {
      questions: inScope.length,
      good: count('good'),
      partial: count('partial'),
      wrong: count('wrong'),
      refused: count('refused'),
    },
    abstention: {
      outOfScope: outOfScope.length,
      outOfScopeRefused: outOfScope.filter((result) => !result.covered).length,
      inScope: inScope.length,
      inScopeRefused: count('refused'),
    },
    questions: results,
  };
}
