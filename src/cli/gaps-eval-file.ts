// A gaps report as a question file for `knowledge-agent eval` (see evaluation.ts's parseQuestionFile): questions rated
// up become questions whose cited pages must be found again; questions the docs did not cover (and answers rated
// down) become out_of_scope questions, so eval checks they are still refused, until the docs team adds the page and
// edits the line into `pages` or `key_facts`.
import type { GapsReport } from '../insights/index.js';

export function evalQuestionFile(report: GapsReport): { text: string; questions: number } {
  const lines = [
    `# Questions asked of ${report.namespace} from ${report.since} to ${report.until} (knowledge-agent gaps --export-eval).`,
    '# "rated-up": an answer a reader rated up; its cited pages must rank again.',
    '# "gap: <topic>": not covered, or rated down. Once the docs answer it, replace "out_of_scope" with the pages or key_facts of a good answer.',
  ];
  let questions = 0;
  for (const [index, entry] of report.rated_up.entries()) {
    if (entry.pages.length === 0) continue;
    lines.push(
      JSON.stringify({
        id: `rated-up-${index + 1}`,
        question: entry.question,
        pages: Object.fromEntries(entry.pages.map((page) => [page, 2])),
        kind: 'rated-up',
      }),
    );
    questions++;
  }
  for (const [groupIndex, group] of report.groups.entries()) {
    for (const [index, question] of group.questions.entries()) {
      lines.push(JSON.stringify({ id: `gap-${groupIndex + 1}-${index + 1}`, question, out_of_scope: true, kind: `gap: ${group.label}` }));
      questions++;
    }
  }
  return { text: `${lines.join('\n')}\n`, questions };
}
