// Answer quality on the FastAPI docs: every question of bench/fastapi-graded-questions.json asked through each answer
// route of the real service (Variant 1 /agent, Variant 2 generate, AG-UI /agent), with the offline extractive model
// and the bundled local embedding model (or whatever KNOWLEDGE_AGENT_MODEL / LLM_* name). An answer is
//   good     when it cites a page that answers the question (grade 2) and holds at least half of its key facts,
//   wrong    when it cites no judged page and holds none of the key facts,
//   partial  otherwise.
// Each route's rows also split the questions into the halves of odd and even ids (see half()).
// Follow-up conversations are asked as multi-turn histories and graded on their last turn.
// Run: npm run bench:answers [-- --routes v1,generate,ag-ui] [--questions FILE] [--verbose]
import { mkdirSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchApp } from './bench-app.js';
import { markdownFiles } from './ingest-speed-child.js';
import { fastapiDocsDirectory, fastapiQuestionsFile, loadQuestionFile, type FollowUp, type GradedQuestion } from './fastapi-set.js';
import { formatTable } from './ranking-scores.js';
import { requireSharedData } from './shared-data.js';

const routes = ['v1', 'generate', 'ag-ui'] as const;
type Route = (typeof routes)[number];
type Grade = 'good' | 'partial' | 'wrong';

interface Options {
  readonly routes: readonly Route[];
  readonly questions: string;
  readonly verbose: boolean;
}

function parseArguments(argv: readonly string[]): Options {
  let chosen: Route[] = [...routes];
  let questions = fastapiQuestionsFile;
  let verbose = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--routes') {
      chosen = (argv[++index] ?? '').split(',').map((name) => {
        if (!(routes as readonly string[]).includes(name)) throw new Error(`unknown route ${name}: choose from ${routes.join(', ')}`);
        return name as Route;
      });
    } else if (argument === '--questions') questions = argv[++index] ?? questions;
    else if (argument === '--verbose') verbose = true;
    else throw new Error(`unknown argument ${argument}`);
  }
  return { routes: chosen, questions, verbose };
}

/** A route's answer: its text and the pages of the snippets it cites ([n] in the text). */
interface Answer {
  readonly text: string;
  readonly citedPages: readonly string[];
}

type Message = { role: 'user' | 'assistant'; content: string };

function sseData(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

function citedNumbers(text: string): number[] {
  return [...new Set([...text.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1])))];
}

function citedPagesOf(text: string, snippetFiles: readonly string[], pageOfFile: ReadonlyMap<string, string>): string[] {
  return citedNumbers(text).flatMap((number) => {
    const page = pageOfFile.get(snippetFiles[number - 1] ?? '');
    return page === undefined ? [] : [page];
  });
}

async function ask(baseUrl: string, route: Route, messages: readonly Message[], pageOfFile: ReadonlyMap<string, string>): Promise<Answer> {
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (route === 'generate') {
    const response = await post('/api/agents/knowledge/generate', { messages });
    const body = (await response.json()) as { text: string; toolCalls?: { result?: { results?: { file: string }[] } }[] };
    const files = body.toolCalls?.[0]?.result?.results?.map((result) => result.file) ?? [];
    return { text: body.text, citedPages: citedPagesOf(body.text, files, pageOfFile) };
  }
  if (route === 'v1') {
    const withMention = messages.map((message, index) =>
      index === messages.length - 1 ? { ...message, content: `@knowledge ${message.content}` } : message,
    );
    const events = sseData(await (await post('/agent', { thread_id: 'bench', run_id: 'bench', messages: withMention })).text()) as Record<
      string,
      any
    >[];
    const files = (events.find((event) => event['type'] === 'tool_call_result')?.['result']?.matches ?? []).map(
      (match: { source: string }) => basename(match.source),
    );
    const text = events
      .filter((event) => event['type'] === 'text_message')
      .map((event) => event['delta'] as string)
      .join('');
    return { text, citedPages: citedPagesOf(text, files, pageOfFile) };
  }
  const events = sseData(
    await (
      await post('/agent', {
        threadId: 'bench',
        runId: 'bench',
        messages: messages.map((message, index) => ({ id: `m${index}`, ...message })),
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      })
    ).text(),
  ) as Record<string, any>[];
  const result = events.find((event) => event['type'] === 'TOOL_CALL_RESULT');
  const files =
    result === undefined
      ? []
      : (JSON.parse(result['content'] as string) as { results: { file: string }[] }).results.map((entry) => entry.file);
  const text = events
    .filter((event) => event['type'] === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event['delta'] as string)
    .join('');
  return { text, citedPages: citedPagesOf(text, files, pageOfFile) };
}

/**
 * The half of the set a question belongs to, by the parity of its number (q001 odd): a change to the answerer is
 * developed on one half and checked on the other, so a rule fitted to some questions shows as a gap between them.
 */
function half(id: string): string {
  return Number(id.replace(/\D/g, '')) % 2 === 1 ? 'odd ids' : 'even ids';
}

function grade(answer: Answer, judged: GradedQuestion | FollowUp): Grade {
  const lower = answer.text.toLowerCase();
  const facts = judged.key_facts.filter((fact) => lower.includes(fact.toLowerCase())).length;
  const answering = answer.citedPages.some((page) => judged.judgements[page] === 2);
  const relevant = answer.citedPages.some((page) => (judged.judgements[page] ?? 0) > 0);
  if (answering && facts * 2 >= judged.key_facts.length) return 'good';
  if (!relevant && facts === 0) return 'wrong';
  return 'partial';
}

let options: Options;
try {
  options = parseArguments(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
requireSharedData('docs-fastapi');
const { questions, follow_ups: followUps } = loadQuestionFile(options.questions);
/** The notice of a hybrid search of the namespace (a fallback to lexical ranking), if any. */
async function searchNotice(baseUrl: string): Promise<string | undefined> {
  const response = await fetch(`${baseUrl}/tools/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ namespace: 'fastapi-answers', query: 'path parameters', mode: 'hybrid' }),
  });
  return ((await response.json()) as { notice?: string }).notice;
}

const storage = fileURLToPath(new URL('./.cache/answers-knowledge', import.meta.url));
mkdirSync(storage, { recursive: true });
const { app, baseUrl } = await startBenchApp({
  KNOWLEDGE_AGENT_MODEL: 'extractive',
  ...process.env,
  KNOWLEDGE_AGENT_STORAGE_PATH: storage,
  KNOWLEDGE_AGENT_FILE_ROOTS: fastapiDocsDirectory,
  KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: 'fastapi-answers',
});

try {
  const started = performance.now();
  const files = await markdownFiles(fastapiDocsDirectory);
  const pageOfFile = new Map<string, string>();
  for (let start = 0; start < files.length; start += 50) {
    const response = await fetch(`${baseUrl}/tools/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sources: files.slice(start, start + 50).map((path) => ({ type: 'file', path })) }),
    });
    const body = (await response.json()) as { documents: { source: string; path: string }[]; errors: unknown[] };
    if (!response.ok || body.errors.length > 0) throw new Error(`ingest failed: ${JSON.stringify(body).slice(0, 500)}`);
    for (const document of body.documents) pageOfFile.set(basename(document.path), relative(fastapiDocsDirectory, document.source));
  }
  console.log(
    `${pageOfFile.size} pages in namespace fastapi-answers (${((performance.now() - started) / 1000).toFixed(1)} s); model ${process.env['KNOWLEDGE_AGENT_MODEL'] ?? 'extractive'}`,
  );
  // Pages kept from an earlier run under another embedding model are re-embedded in the background, and searches are
  // lexical until that is done (their notice says so): the questions wait for it, or they would measure lexical answers.
  const waitStarted = performance.now();
  while (await searchNotice(baseUrl)) {
    if (performance.now() - waitStarted > 900_000) throw new Error('the namespace was still being re-embedded after 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  if (performance.now() - waitStarted > 1000)
    console.log(`waited ${((performance.now() - waitStarted) / 1000).toFixed(0)} s for the namespace to be re-embedded`);

  const tally = new Map<string, Record<Grade, number>>();
  const count = (row: string, result: Grade): void => {
    const counts = tally.get(row) ?? { good: 0, partial: 0, wrong: 0 };
    counts[result]++;
    tally.set(row, counts);
  };
  for (const route of options.routes) {
    for (const question of questions) {
      const answer = await ask(baseUrl, route, [{ role: 'user', content: question.question }], pageOfFile);
      const result = grade(answer, question);
      count(route, result);
      count(`${route} ${question.kind}`, result);
      count(`${route} ${half(question.id)}`, result);
      if (options.verbose && route === options.routes[0]) {
        console.log(
          `\n### ${question.id} [${result}] ${question.question}\nfacts: ${question.key_facts.join(' | ')}  cited: ${answer.citedPages.join(', ')}\n${answer.text}`,
        );
      }
    }
    for (const conversation of followUps) {
      const messages: Message[] = [];
      let answer: Answer = { text: '', citedPages: [] };
      for (const turn of conversation.turns) {
        messages.push({ role: 'user', content: turn });
        answer = await ask(baseUrl, route, messages, pageOfFile);
        messages.push({ role: 'assistant', content: answer.text });
      }
      count(`${route} follow-up`, grade(answer, conversation));
      if (options.verbose && route === options.routes[0]) {
        console.log(
          `\n### ${conversation.id} [${grade(answer, conversation)}] ${conversation.turns.join(' / ')}\ncited: ${answer.citedPages.join(', ')}\n${answer.text}`,
        );
      }
    }
  }
  const rows = [...tally].map(([row, counts]) => {
    const total = counts.good + counts.partial + counts.wrong;
    const share = (value: number) => `${value} (${((100 * value) / total).toFixed(0)}%)`;
    return [row, String(total), share(counts.good), share(counts.partial), share(counts.wrong)];
  });
  console.log(`\n${formatTable(['route', 'asked', 'good', 'partial', 'wrong'], rows)}`);
} finally {
  await app.close();
}
