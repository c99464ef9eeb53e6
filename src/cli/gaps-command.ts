// `knowledge-agent gaps --namespace NS`: what the docs do not answer, from the service's question log (GET
// /api/gaps/:namespace): gap groups, the most asked questions and counts per day; as JSON or CSV; or an evaluation
// question file of the rated and uncovered questions for `knowledge-agent eval`.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { GapsReport } from '../insights/index.js';
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
import { evalQuestionFile } from './gaps-eval-file.js';

const help = `Usage: knowledge-agent gaps --namespace NAME [--since DURATION] [--json | --csv] [--export-eval FILE]

What people asked that the docs did not answer (GET /api/gaps/NAME): questions not covered and answers
rated down, grouped by topic (largest first, with the closest pages and the thumbs-down comments), the
most asked questions, and the questions per day (covered, not covered, rated up, rated down).
Needs a write token of the namespace (--token or $KNOWLEDGE_AGENT_TOKEN) when tokens are configured.

Options:
  -n, --namespace NAME     the namespace (required)
      --since DURATION     only questions asked within it: 7d, 24h, 2w (default: all the log keeps)
      --json               print the report as JSON
      --csv                print the gap groups as CSV (label,count,questions,closest_pages,comments)
      --export-eval FILE   write the rated and uncovered questions as a question file for knowledge-agent eval

${connectionHelp}

Example:
  knowledge-agent gaps --namespace handbook --since 30d --export-eval handbook-gaps.jsonl`;

const listed = 5;

function formatReport(report: GapsReport): string {
  const { totals } = report;
  const lines = [
    `${report.namespace}: ${totals.questions} questions since ${report.since.slice(0, 10)}: ${totals.covered} covered, ` +
      `${totals.not_covered} not covered, ${totals.rated_up} rated up, ${totals.rated_down} rated down`,
  ];
  if (report.log === 'counts') lines.push('(the question log keeps counts only: KNOWLEDGE_AGENT_QUESTION_LOG=counts)');
  if (report.log === 'off') lines.push('(the question log is off: KNOWLEDGE_AGENT_QUESTION_LOG=off)');
  if (report.groups.length > 0) {
    lines.push('', `Gaps${report.grouping === 'lexical' ? ' (grouped by shared words: no embedding model)' : ''}:`);
    for (const group of report.groups) {
      lines.push(`  ${group.count}  ${group.label}`);
      for (const question of group.questions.slice(0, listed)) lines.push(`       - ${question}`);
      if (group.questions.length > listed) lines.push(`       ... ${group.questions.length - listed} more`);
      if (group.pages.length > 0) lines.push(`       closest pages: ${group.pages.map((page) => page.title).join(', ')}`);
      for (const comment of group.comments.slice(0, listed)) lines.push(`       comment: ${comment}`);
    }
  }
  if (report.top_questions.length > 0) {
    lines.push('', 'Most asked:');
    for (const question of report.top_questions) lines.push(`  ${String(question.count).padStart(5)}  ${question.question}`);
  }
  if (report.counts.length > 0) {
    lines.push('', 'DAY         QUESTIONS  COVERED  NOT COVERED  UP  DOWN');
    for (const day of report.counts)
      lines.push(
        `${day.day}  ${String(day.questions).padStart(9)}  ${String(day.covered).padStart(7)}  ${String(day.not_covered).padStart(11)}  ` +
          `${String(day.rated_up).padStart(2)}  ${String(day.rated_down).padStart(4)}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

export const gapsCommand: Command = {
  name: 'gaps',
  summary: 'what the docs do not answer: grouped questions, most asked, per day',
  help,
  async run(args: readonly string[], context: CommandContext): Promise<number> {
    const { values } = parseCommandLine('gaps', () =>
      parseArgs({
        args: [...args],
        options: {
          ...connectionOptions,
          namespace: { type: 'string', short: 'n' },
          since: { type: 'string' },
          json: { type: 'boolean' },
          csv: { type: 'boolean' },
          'export-eval': { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      }),
    );
    if (values.help === true) {
      context.stdout.write(`${help}\n`);
      return exitCodes.ok;
    }
    if (values.namespace === undefined || values.namespace.trim() === '') throw new UsageError('--namespace is required', 'gaps');
    if (values.json === true && values.csv === true) throw new UsageError('give --json or --csv, not both', 'gaps');
    const client = new KnowledgeAgentClient(resolveConnection(values, context.env, 'gaps'));
    const path = `/api/gaps/${encodeURIComponent(values.namespace.trim())}`;
    const since: Record<string, string> = values.since === undefined ? {} : { since: values.since };
    if (values.csv === true) {
      const response = await client.send(path, { query: { ...since, format: 'csv' } });
      context.stdout.write(await response.text());
      if (values['export-eval'] === undefined) return exitCodes.ok;
    }
    const report = await client.json<GapsReport>(path, { query: since });
    if (values['export-eval'] !== undefined) {
      const file = resolve(context.cwd, values['export-eval']);
      const { text, questions } = evalQuestionFile(report);
      try {
        await writeFile(file, text);
      } catch (error) {
        throw new CliError(`--export-eval: cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
      context.stderr.write(
        `wrote ${questions} questions to ${file}; edit the out_of_scope ones into pages or key_facts once the docs answer them\n`,
      );
    }
    if (values.json === true) context.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (values.csv !== true) context.stdout.write(formatReport(report));
    return exitCodes.ok;
  },
};
