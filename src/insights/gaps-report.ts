// The gaps report of a namespace, from its question log: the questions the docs did not cover and the answers rated
// down, grouped by topic; the most asked questions; the counts per day; the questions rated up with the pages they
// cited (for an evaluation file). Pure over the records, given a way to embed questions and to find pages.
import { pageLabel } from '../search/page-label.js';
import type { AnswerFeedback, AskedQuestion, QuestionLogRecord, RetrievedPage } from '../store/question-log.js';
import { groupQuestions } from './question-groups.js';
import type { QuestionLogMode } from './question-recorder.js';
import { topicLabel } from './topic-label.js';

export interface ReportPage {
  readonly title: string;
  readonly file: string;
  readonly origin: string;
  readonly score: number;
}

export interface GapGroup {
  readonly label: string;
  /** Questions in the group, each counted as often as it was asked. */
  readonly count: number;
  /** Its distinct questions, most asked first (at most `examplesPerGroup`). */
  readonly questions: readonly string[];
  /** The pages closest to the topic: where an answer could go, or what to fix. */
  readonly pages: readonly ReportPage[];
  /** The comments given with thumbs down on the group's answers. */
  readonly comments: readonly string[];
}

export interface DayCounts {
  /** YYYY-MM-DD, UTC. */
  readonly day: string;
  readonly questions: number;
  readonly covered: number;
  readonly not_covered: number;
  readonly rated_up: number;
  readonly rated_down: number;
}

export interface GapsReport {
  readonly namespace: string;
  readonly since: string;
  readonly until: string;
  /** What the question log keeps (KNOWLEDGE_AGENT_QUESTION_LOG): with `counts`, groups and questions are empty. */
  readonly log: QuestionLogMode;
  readonly totals: Omit<DayCounts, 'day'>;
  readonly groups: readonly GapGroup[];
  readonly top_questions: readonly { readonly question: string; readonly count: number; readonly not_covered: number }[];
  readonly counts: readonly DayCounts[];
  /** Questions rated up, with the pages their answers cited: ready to become evaluation questions. */
  readonly rated_up: readonly { readonly question: string; readonly pages: readonly string[] }[];
  /** How the groups were made: `embedding`, or `lexical` when no embedding model could embed the questions. */
  readonly grouping: 'embedding' | 'lexical';
}

export interface GapsReportInput {
  readonly namespace: string;
  readonly since: Date;
  readonly until: Date;
  readonly mode: QuestionLogMode;
  readonly records: readonly QuestionLogRecord[];
  /** Vectors of the questions, in order; `lexical` when they are word vectors (no embedding model). */
  readonly embed: (texts: readonly string[]) => Promise<{ vectors: Float32Array[]; kind: 'embedding' | 'lexical' }>;
  /** The pages closest to a group's leading questions. */
  readonly closestPages: (query: string) => Promise<readonly ReportPage[]>;
}

/**
 * Distinct questions grouped at most (the most asked ones; the rest are counted, not grouped): embedding them is
 * most of a report's time the first time (the local model embeds about 300 questions a second per core).
 */
const groupedQuestionsLimit = 500;
const groupsLimit = 50;
const examplesPerGroup = 20;
const topQuestionsLimit = 20;
const ratedUpLimit = 500;

/** The form two askings of one question share: lower case, spaces collapsed, closing punctuation dropped. */
export function normalizedQuestion(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s?!.]+$/, '')
    .trim();
}

interface DistinctQuestion {
  text: string;
  count: number;
  notCovered: number;
  comments: string[];
}

export async function buildGapsReport(input: GapsReportInput): Promise<GapsReport> {
  const questions = input.records.filter((record): record is AskedQuestion => record.kind === 'question');
  // The last rating of a run counts: a reader who changes their mind replaces their rating.
  const ratings = new Map<string, AnswerFeedback>();
  const comments = new Map<string, string[]>();
  for (const record of input.records) {
    if (record.kind !== 'feedback') continue;
    ratings.set(record.runId, record);
    if (record.rating === 'down' && record.comment !== undefined)
      comments.set(record.runId, [...(comments.get(record.runId) ?? []), record.comment]);
  }

  const days = new Map<string, { questions: number; covered: number; not_covered: number; rated_up: number; rated_down: number }>();
  const all = new Map<string, DistinctQuestion>();
  const gaps = new Map<string, DistinctQuestion>();
  const ratedUp = new Map<string, { question: string; pages: string[] }>();
  for (const question of questions) {
    const rating = ratings.get(question.runId)?.rating;
    const day = question.at.slice(0, 10);
    const counts = days.get(day) ?? { questions: 0, covered: 0, not_covered: 0, rated_up: 0, rated_down: 0 };
    counts.questions++;
    if (question.covered) counts.covered++;
    else counts.not_covered++;
    if (rating === 'up') counts.rated_up++;
    if (rating === 'down') counts.rated_down++;
    days.set(day, counts);

    if (question.question === undefined) continue;
    const key = normalizedQuestion(question.question);
    if (key === '') continue;
    tally(all, key, question.question, !question.covered, []);
    if (!question.covered || rating === 'down') tally(gaps, key, question.question, !question.covered, comments.get(question.runId) ?? []);
    if (rating === 'up' && question.covered && !ratedUp.has(key))
      ratedUp.set(key, { question: question.question, pages: citedPages(question) });
  }

  const counts = [...days].sort(([left], [right]) => left.localeCompare(right)).map(([day, dayCounts]) => ({ day, ...dayCounts }));
  const totals = counts.reduce(
    (sum, day) => ({
      questions: sum.questions + day.questions,
      covered: sum.covered + day.covered,
      not_covered: sum.not_covered + day.not_covered,
      rated_up: sum.rated_up + day.rated_up,
      rated_down: sum.rated_down + day.rated_down,
    }),
    { questions: 0, covered: 0, not_covered: 0, rated_up: 0, rated_down: 0 },
  );
  const { groups, grouping } = await groupGaps(input, [...gaps.values()]);
  return {
    namespace: input.namespace,
    since: input.since.toISOString(),
    until: input.until.toISOString(),
    log: input.mode,
    totals,
    groups,
    top_questions: mostAsked([...all.values()])
      .slice(0, topQuestionsLimit)
      .map((question) => ({ question: question.text, count: question.count, not_covered: question.notCovered })),
    counts,
    rated_up: [...ratedUp.values()].slice(0, ratedUpLimit),
    grouping,
  };
}

function tally(
  questions: Map<string, DistinctQuestion>,
  key: string,
  text: string,
  notCovered: boolean,
  comments: readonly string[],
): void {
  const entry = questions.get(key) ?? { text, count: 0, notCovered: 0, comments: [] };
  entry.count++;
  if (notCovered) entry.notCovered++;
  entry.comments.push(...comments);
  questions.set(key, entry);
}

function mostAsked(questions: DistinctQuestion[]): DistinctQuestion[] {
  return questions.sort((left, right) => right.count - left.count || left.text.localeCompare(right.text));
}

/** The origins of the pages an answer cited: its sources are page labels or, where the contract wants them, file names (older records: titles). */
function citedPages(question: AskedQuestion): string[] {
  const sources = new Set(question.sources ?? []);
  const cited = (page: RetrievedPage) => sources.has(pageLabel(page)) || sources.has(page.file) || sources.has(page.title);
  return [...new Set((question.pages ?? []).filter(cited).map((page) => page.origin))];
}

async function groupGaps(
  input: GapsReportInput,
  gaps: DistinctQuestion[],
): Promise<{ groups: GapGroup[]; grouping: GapsReport['grouping'] }> {
  const grouped = mostAsked(gaps).slice(0, groupedQuestionsLimit);
  if (grouped.length === 0) return { groups: [], grouping: 'embedding' };
  const { vectors, kind } = await input.embed(grouped.map((question) => question.text));
  // Word vectors (no embedding model) share the threshold: half their words in common is one topic.
  const memberLists = groupQuestions(
    grouped.map((question, index) => ({ vector: vectors[index] as Float32Array, weight: question.count })),
  ).slice(0, groupsLimit);
  const groups: GapGroup[] = [];
  for (const members of memberLists) {
    const memberQuestions = members.map((index) => grouped[index] as DistinctQuestion);
    const leading = memberQuestions[0] as DistinctQuestion;
    groups.push({
      label: topicLabel(memberQuestions),
      count: memberQuestions.reduce((sum, question) => sum + question.count, 0),
      questions: memberQuestions.slice(0, examplesPerGroup).map((question) => question.text),
      pages: await input.closestPages(leading.text),
      comments: [...new Set(memberQuestions.flatMap((question) => question.comments))],
    });
  }
  return { groups, grouping: kind };
}
