// The FastAPI question set (bench/fastapi-graded-questions.json) as an IR test set over the FastAPI docs: each page
// is a document (id: its path under the docs folder, loaded the way a file ingest loads it), each question a query
// with graded page judgements (2: answers it, 1: relevant), and each question's key facts for the answer benchmark.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BeirSet } from './beir-set.js';
import { loadDocsPages } from './chunking-study.js';
import { sharedDataDirectory } from './shared-data.js';

export const fastapiDocsDirectory = join(sharedDataDirectory, 'docs-fastapi');
export const fastapiQuestionsFile = fileURLToPath(new URL('./fastapi-graded-questions.json', import.meta.url));

export interface GradedQuestion {
  readonly id: string;
  readonly kind: 'how-to' | 'troubleshooting' | 'concept';
  readonly question: string;
  /** Page path -> grade (2 answers the question, 1 is relevant). */
  readonly judgements: Readonly<Record<string, number>>;
  /** Strings a correct answer holds (compared without case). */
  readonly key_facts: readonly string[];
}

export interface FollowUp {
  readonly id: string;
  /** The user's messages in order; the last one is judged. */
  readonly turns: readonly string[];
  readonly judgements: Readonly<Record<string, number>>;
  readonly key_facts: readonly string[];
}

export interface QuestionFile {
  readonly questions: readonly GradedQuestion[];
  readonly follow_ups: readonly FollowUp[];
}

export function loadQuestionFile(file = fastapiQuestionsFile): QuestionFile {
  return JSON.parse(readFileSync(file, 'utf8')) as QuestionFile;
}

export async function loadFastapiSet(docsDirectory = fastapiDocsDirectory, questionsFile = fastapiQuestionsFile): Promise<BeirSet> {
  const { questions } = loadQuestionFile(questionsFile);
  const documents = await loadDocsPages(docsDirectory);
  const pages = new Set(documents.map((document) => document.id));
  for (const question of questions) {
    for (const page of Object.keys(question.judgements)) {
      if (!pages.has(page)) throw new Error(`${question.id} judges ${page}, which is not in ${docsDirectory}`);
    }
  }
  return {
    name: 'fastapi-questions',
    directory: docsDirectory,
    documents,
    queries: questions.map((question) => ({ id: question.id, text: question.question })),
    judgments: new Map(questions.map((question) => [question.id, new Map(Object.entries(question.judgements))])),
  };
}
