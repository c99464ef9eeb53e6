// One agent run: retrieve first, then stream the model's answer with checked citations and a Sources line,
// or hand a call of a platform tool back to the platform. Yields events; never writes to a socket.
import { randomUUID } from 'node:crypto';
import { isKnowledgeError } from '../errors.js';
import { unclosedFence } from '../markdown/code-context.js';
import type { ChatMessage, ChatModel, ToolCall, ToolDefinition } from '../providers/chat-model.js';
import type { AgentEvent } from './agent-event.js';
import { createCitationFilter, formatSourcesLine } from './citation-filter.js';
import { closestPages, notCoveredSentence, passesRelevanceFloor, saysNotCovered } from './coverage.js';
import { missingNamespaceAnswer, nothingFoundAnswer, systemPrompt } from './prompt.js';
import type { RelevanceEvidence } from '../search/relevance.js';
import type { Snippet } from '../search/snippet.js';
import type { NamespaceName } from '../store/namespace-name.js';

/** What the retrieval step found: the numbered snippets, and whether the namespace exists at all. */
export interface Retrieval {
  readonly snippets: readonly Snippet[];
  /** False for a namespace nothing was ever ingested into: the answer says so rather than "nothing found". */
  readonly namespaceExists: boolean;
  /** The search's notice (a ranking fallback, or the missing namespace), passed on with the retrieval's result. */
  readonly notice?: string;
  /** How well the snippets match the query; absent when nothing was searched. */
  readonly relevance?: RelevanceEvidence;
}

export interface AgentRunInput {
  readonly namespace: NamespaceName;
  readonly query: string;
  /** Sanitized conversation, newest last. */
  readonly history: readonly ChatMessage[];
  /** Tools the platform supplied; calls to them are handed back, not run here. */
  readonly platformTools: readonly ToolDefinition[];
  /** The retrieval tool's name as the wire format shows it. */
  readonly retrievalToolName: string;
  readonly retrieve: (namespace: NamespaceName, query: string, signal: AbortSignal) => Promise<Retrieval>;
  /** What the Sources line lists for a cited snippet. */
  readonly sourceLabel: (snippet: Snippet) => string;
  /** Whether snippets below the relevance floor are answered as "not covered" without asking the model. */
  readonly coverageCheck: boolean;
  readonly chat: ChatModel;
  readonly signal: AbortSignal;
}

/** Expected failures (provider, embedding) become an error event; anything else is a bug and propagates to be logged. */
function asErrorEvent(error: unknown): AgentEvent {
  if (!isKnowledgeError(error)) throw error;
  return { type: 'error', code: error.code, message: error.message };
}

/**
 * What stopped a run: its signal's reason when it was aborted, else the error. An abort whose reason is a
 * KnowledgeError (shutdown) is reported; any other abort (the client left) ends the run silently: undefined.
 */
function failureOf(signal: AbortSignal, error: unknown): unknown {
  if (!signal.aborted) return error;
  return isKnowledgeError(signal.reason) ? signal.reason : undefined;
}

export async function* runAgent(input: AgentRunInput): AsyncGenerator<AgentEvent> {
  const retrievalCallId = `call_${randomUUID()}`;
  yield {
    type: 'retrieval-start',
    toolCallId: retrievalCallId,
    toolName: input.retrievalToolName,
    args: { namespace: input.namespace, query: input.query },
  };
  let retrieval: Retrieval;
  try {
    retrieval = await input.retrieve(input.namespace, input.query, input.signal);
  } catch (error) {
    const failure = failureOf(input.signal, error);
    if (failure !== undefined) yield asErrorEvent(failure);
    return;
  }
  const { snippets } = retrieval;
  yield {
    type: 'retrieval-result',
    toolCallId: retrievalCallId,
    snippets,
    ...(retrieval.notice === undefined ? {} : { notice: retrieval.notice }),
  };

  const messageId = `msg_${randomUUID()}`;
  // Without snippets, or with none that is about the question, there is nothing to ground an answer on: the answer says
  // so and suggests the closest pages. The model is still asked when it may call a platform tool.
  const emptyAnswer = retrieval.namespaceExists ? nothingFoundAnswer(input.namespace) : missingNamespaceAnswer(input.namespace);
  const belowFloor =
    input.coverageCheck && snippets.length > 0 && retrieval.relevance !== undefined && !passesRelevanceFloor(retrieval.relevance);
  if ((snippets.length === 0 || belowFloor) && input.platformTools.length === 0) {
    const notCovered = notCoveredSentence(input.namespace, retrieval.relevance);
    const text = [snippets.length === 0 ? emptyAnswer : notCovered, closestPages(snippets), formatSourcesLine([])]
      .filter((part) => part !== '')
      .join('\n\n');
    yield { type: 'text-start', messageId };
    yield { type: 'text-delta', messageId, delta: text };
    yield { type: 'text-end', messageId };
    yield { type: 'finish', text, sources: [], covered: false };
    return;
  }

  const filter = createCitationFilter(snippets.length);
  const platformToolNames = new Set(input.platformTools.map((tool) => tool.name));
  const platformCalls: ToolCall[] = [];
  let answer = '';
  let started = false;
  function* emit(text: string): Generator<AgentEvent> {
    if (text === '') return;
    if (!started) {
      started = true;
      yield { type: 'text-start', messageId };
    }
    answer += text;
    yield { type: 'text-delta', messageId, delta: text };
  }

  try {
    const stream = input.chat.stream({
      messages: [{ role: 'system', content: systemPrompt(input.namespace, snippets, retrieval.namespaceExists) }, ...input.history],
      tools: input.platformTools,
      grounding: { query: input.query, snippets },
      signal: input.signal,
    });
    for await (const part of stream) {
      if (part.type === 'text-delta') yield* emit(filter.push(part.delta));
      else if (part.type === 'tool-call' && platformToolNames.has(part.toolCall.name)) platformCalls.push(part.toolCall);
    }
  } catch (error) {
    const failure = failureOf(input.signal, error);
    if (failure === undefined) return;
    yield* emit(filter.finish());
    if (started) yield { type: 'text-end', messageId };
    yield asErrorEvent(failure);
    return;
  }

  if (platformCalls.length > 0) {
    yield* emit(filter.finish());
    if (started) yield { type: 'text-end', messageId };
    for (const call of platformCalls) {
      yield { type: 'frontend-tool-call', toolCallId: call.id, toolName: call.name, argumentsText: call.arguments };
    }
    yield { type: 'finish', text: answer, sources: [], covered: true };
    return;
  }

  const body = filter.finish();
  const full = answer + body;
  // The model's own "the docs do not cover this" cites nothing as an answer; the closest pages follow as suggestions.
  const covered = full.trim() !== '' && !saysNotCovered(full, filter.citedNumbers.length);
  const sources = covered ? [...new Set(filter.citedNumbers.map((number) => input.sourceLabel(snippets[number - 1] as Snippet)))] : [];
  // An answer cut off inside a code block gets the block closed, so the Sources line stays outside it.
  const fence = unclosedFence(full);
  const suggestions = covered ? '' : closestPages(snippets);
  const closing = [`${full === '' ? emptyAnswer : body}${fence === undefined ? '' : `\n${fence}`}`, suggestions, formatSourcesLine(sources)]
    .filter((part, index) => index === 0 || part !== '')
    .join('\n\n');
  yield* emit(closing);
  yield { type: 'text-end', messageId };
  yield { type: 'finish', text: answer, sources, covered };
}
