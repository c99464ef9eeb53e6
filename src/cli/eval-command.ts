// `knowledge-agent eval --namespace NS --questions FILE`: asks every question of a question file through the HTTP API
// and prints retrieval, answer and abstention figures with a per-question table; floors make it a CI check.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, UsageError, exitCodes } from './cli-error.js';
import { KnowledgeAgentClient } from './client.js';
import {
  connectionHelp,
  connectionOptions,
  parseCommandLine,
  resolveConnection,
  type Command,
  type CommandContext,
} from './command-options.js';
import type { EvaluationSummary, QuestionResult } from './evaluation.js';

const modes = ['hybrid', 'lexical', 'embedding'] as const;

const help = `Usage: knowledge-agent eval --namespace NAME --questions FILE [--json] [--min-good SHARE] [--min-ndcg VALUE]

Asks every question of FILE through the service (a search for the retrieval figures, then generate for
the answer) and prints: retrieval (nDCG@10, Recall@10, MRR@10 over the judged pages), answers (good,
partial, wrong, refused) and abstention (out-of-scope questions refused, in-scope ones refused), then a
table of every question.

The question file is JSON Lines, one question per line:
  {"id":"q1","question":"How do I pin the Python version?","pages":{"guide/python.md":2,"reference/settings.md":1},"key_facts":["python pin"]}
  {"id":"q2","question":"How do I set the JVM heap size?","out_of_scope":true}
pages: page path (as its source ends, or "file.pdf#Section heading") -> grade, 2 answers it, 1 is relevant.
key_facts: short strings a good answer holds. earlier_questions: asked first, for a follow-up.
A good answer cites a page graded 2 and holds at least half of the key facts.

Options:
  -n, --namespace NAME   the namespace to evaluate (required)
  -q, --questions FILE   the question file (required)
      --mode MODE        ranking for the retrieval figures: ${modes.join(', ')} (default hybrid)
      --json             print the whole result as one JSON object
      --min-good SHARE   exit 1 when fewer in-scope answers are good (0.8 or 80%)
      --min-ndcg VALUE   exit 1 when the mean nDCG@10 is lower (0 to 1)

${connectionHelp}

Example:
  knowledge-agent eval --namespace handbook --questions handbook-questions.jsonl --min-good 75%`;

/** A share given as 0.8 or 80%. */
function parseShare(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const percent = value.trim().endsWith('%');
  const number = Number(value.trim().replace(/%$/, ''));
  const share = percent ? number / 100 : number;
  if (value.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1)
    throw new UsageError(`${option} must be a share between 0 and 1 (or a percentage such as 80%), not "${value}"`, 'eval');
  return share;
}

const percent = (part: number, whole: number) => `${part} (${whole === 0 ? 0 : Math.round((100 * part) / whole)}%)`;

function report(summary: EvaluationSummary): string {
  const { retrieval, answers, abstention } = summary;
  const lines = [
    `namespace "${summary.namespace}", ${summary.questions.length} questions (${answers.questions} in scope, ${abstention.outOfScope} out of scope); ranking ${summary.mode}`,
    '',
    `retrieval  ${retrieval.questions} judged questions: nDCG@10 ${retrieval.ndcg10.toFixed(3)}  Recall@10 ${retrieval.recall10.toFixed(3)}  MRR@10 ${retrieval.mrr10.toFixed(3)}`,
    `answers    good ${percent(answers.good, answers.questions)}  partial ${percent(answers.partial, answers.questions)}  wrong ${percent(answers.wrong, answers.questions)}  refused ${percent(answers.refused, answers.questions)}`,
    `abstention out-of-scope refused ${percent(abstention.outOfScopeRefused, abstention.outOfScope)}  in-scope refused ${percent(abstention.inScopeRefused, abstention.inScope)}`,
    '',
    table(summary.questions),
  ];
  return lines.join('\n');
}

function table(results: readonly QuestionResult[]): string {
  const rows = results.map((result) => [
    result.id,
    result.outOfScope ? (result.covered ? 'answered (out of scope)' : 'refused (out of scope)') : result.grade,
    result.ndcg10 === undefined ? '-' : result.ndcg10.toFixed(2),
    result.citedPages.slice(0, 2).join(' ') || '-',
    result.question.length > 70 ? `${result.question.slice(0, 67)}...` : result.question,
  ]);
  const header = ['id', 'answer', 'nDCG', 'cited', 'question'];
  const widths = header.map((title, column) => Math.min(60, Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length))));
  const format = (row: readonly string[]) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  return [format(header), ...rows.map(format)].join('\n');
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'measure retrieval, answers and abstention on a question file',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values } = parseCommandLine('eval', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          questions: { type: 'string', short: 'q' },
          mode: { type: 'string' },
          json: { type: 'boolean' },
          'min-good': { type: 'string' },
          'min-ndcg': { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    if (values.namespace === undefined) throw new UsageError('eval: give the namespace with --namespace', 'eval');
    if (values.questions === undefined) throw new UsageError('eval: give the question file with --questions', 'eval');
    const mode = values.mode ?? 'hybrid';
    if (!(modes as readonly string[]).includes(mode))
      throw new UsageError(`--mode must be one of ${modes.join(', ')}, not "${mode}"`, 'eval');
    const minGood = parseShare(values['min-good'], '--min-good');
    const minNdcg = parseShare(values['min-ndcg'], '--min-ndcg');
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'eval'));
    const file = resolve(context.cwd, values.questions);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read the question file ${values.questions}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    // zod and the evaluation are loaded by this command only.
    const { evaluate, parseQuestionFile } = await import('./evaluation.js');
    const questions = parseQuestionFile(text, values.questions);
    const json = values.json === true;
    const summary = await evaluate(client, questions, {
      namespace: values.namespace,
      mode: mode as (typeof modes)[number],
      onQuestion: (_result, index) => {
        if (!json && context.stderr.isTTY === true) context.stderr.write(`\rasked ${index + 1} of ${questions.length}`);
      },
    });
    if (!json && context.stderr.isTTY === true) context.stderr.write('\n');
    context.stdout.write(json ? `${JSON.stringify(summary, null, 2)}\n` : `${report(summary)}\n`);
    const failures = [
      ...(minGood !== undefined && summary.answers.good < minGood * summary.answers.questions
        ? [`good answers ${summary.answers.good} of ${summary.answers.questions} are below --min-good ${minGood}`]
        : []),
      ...(minNdcg !== undefined && summary.retrieval.ndcg10 < minNdcg
        ? [`nDCG@10 ${summary.retrieval.ndcg10.toFixed(3)} is below --min-ndcg ${minNdcg}`]
        : []),
    ];
    for (const failure of failures) context.stderr.write(`knowledge-agent: ${failure}\n`);
    return failures.length === 0 ? exitCodes.ok : exitCodes.failure;
  },
};
