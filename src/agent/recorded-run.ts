// Watches an agent run's events pass and, when it finishes, hands its question log record over: the question, the
// query searched, the pages retrieved with their scores, the answer's length, coverage, sources and latency.
import type { AskedQuestion } from '../store/question-log.js';
import type { AgentEvent } from './agent-event.js';

export async function* recordedRun(
  run: AsyncGenerator<AgentEvent>,
  asked: { readonly runId: string; readonly channel: string; readonly question: string },
  record: (question: AskedQuestion) => void,
): AsyncGenerator<AgentEvent> {
  const started = performance.now();
  let query = asked.question;
  let pages: AskedQuestion['pages'] = [];
  let answerLength = 0;
  for await (const event of run) {
    if (event.type === 'retrieval-start') query = event.args.query;
    else if (event.type === 'retrieval-result')
      pages = event.snippets.map((snippet) => ({ file: snippet.file, title: snippet.title, origin: snippet.origin, score: snippet.score }));
    else if (event.type === 'text-delta') answerLength += event.delta.length;
    else if (event.type === 'finish')
      // Before the finish is passed on: a client that leaves after the answer's last event still has it recorded.
      record({
        kind: 'question',
        runId: asked.runId,
        at: new Date().toISOString(),
        channel: asked.channel,
        question: asked.question,
        query,
        pages,
        pageCount: pages.length,
        answerLength,
        covered: event.covered,
        sources: [...event.sources],
        latencyMs: Math.round(performance.now() - started),
      });
    yield event;
  }
}
