// Prepares agent runs for both variants: the namespace, the query, the sanitized history and the retriever.
import type { ChatMessage, ChatModel, ToolDefinition } from '../providers/chat-model.js';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import type { SearchMode, SearchOutcome, SearchService } from '../search/search-service.js';
import type { AgentEvent } from './agent-event.js';
import { latestUserText, sanitizeConversation, type IncomingMessage } from './conversation.js';
import { containsMention, removeMention } from './mention.js';
import { extractiveModelId } from '../providers/extractive-chat-model.js';
import { runAgent } from './run-agent.js';
import { carryEarlierTerms, looksLikeFollowUp, rewriteWithModel } from './standalone-query.js';
import { toSnippets, type Snippet } from '../search/snippet.js';
import type { AskedQuestion } from '../store/question-log.js';
import { recordedRun } from './recorded-run.js';

export interface AgentServiceOptions {
  readonly chat: ChatModel | undefined;
  readonly search: SearchService;
  readonly topK: number;
  /** How the agent retrieves (KNOWLEDGE_AGENT_RETRIEVAL). */
  readonly retrieval: SearchMode;
  /** Answer "not covered" when the snippets fall below the relevance floor (KNOWLEDGE_AGENT_COVERAGE_CHECK). */
  readonly coverageCheck: boolean;
  readonly mention: string;
  /** The storage root as configured, for the storage paths reported in matches. */
  readonly storagePath: string;
  /** The app's shutdown signal: aborting it ends every run with its reason as the final error event. */
  readonly shutdown?: AbortSignal;
  /** Where every answered question goes (the question log's recorder, which returns at once); absent: nowhere. */
  readonly questions?: { record(namespace: string, question: AskedQuestion): void };
}

export interface AgentRequest {
  /** The run's id, as the answer's wire format carries it: feedback on the answer names it. */
  readonly runId: string;
  /** The route the question came by (variant1, ag-ui, generate, mastra, openai), for the question log. */
  readonly channel: string;
  readonly namespace: string;
  readonly messages: readonly IncomingMessage[];
  readonly platformTools: readonly ToolDefinition[];
  readonly signal: AbortSignal;
}

/** The whole of a Variant 2 run, for the non-streaming generate endpoint. */
export interface GeneratedAnswer {
  readonly runId: string;
  readonly text: string;
  readonly sources: readonly string[];
  /** False when the answer says the docs do not cover the question. */
  readonly covered: boolean;
  readonly retrieval:
    | {
        readonly toolCallId: string;
        readonly toolName: string;
        readonly args: { readonly namespace: string; readonly query: string };
        readonly snippets: readonly Snippet[];
        readonly notice?: string;
      }
    | undefined;
  /** Calls of platform tools the model made instead of answering; the caller runs them and asks again. */
  readonly platformToolCalls: readonly { readonly toolCallId: string; readonly toolName: string; readonly argumentsText: string }[];
}

type Retriever = (namespace: string, query: string, signal: AbortSignal) => Promise<SearchOutcome>;

export class AgentService {
  constructor(private readonly options: AgentServiceOptions) {}

  /** Throws 503 `agent_not_initialized` when no provider key was configured: the agent routes check it first. */
  assertAvailable(): void {
    this.chatModel();
  }

  private chatModel(): ChatModel {
    if (this.options.chat === undefined) throw new KnowledgeError('agent_not_initialized', 'Agent not initialized');
    return this.options.chat;
  }

  /** Variant 1: answers only when the newest user message carries the mention; undefined means stay silent. */
  variant1Run(request: AgentRequest): AsyncGenerator<AgentEvent> | undefined {
    const history = sanitizeConversation(request.messages);
    const latest = latestUserText(history);
    if (latest === undefined || !containsMention(latest, this.options.mention)) return undefined;
    return this.run(request, history, removeMention(latest, this.options.mention), {
      toolName: 'search_docs',
      retrieve: (namespace, query, signal) => this.retrieve(namespace, query, signal),
      sourceLabel: (snippet) => snippet.title,
    });
  }

  /** Variant 2: always answers (no mention gate), retrieving lexically and citing file names. */
  variant2Run(request: AgentRequest): AsyncGenerator<AgentEvent> {
    const history = sanitizeConversation(request.messages);
    const latest = latestUserText(history) ?? '';
    return this.run(request, history, removeMention(latest, this.options.mention), {
      toolName: 'searchDocs',
      retrieve: (namespace, query, signal) => this.retrieve(namespace, query, signal),
      sourceLabel: (snippet) => snippet.file,
    });
  }

  /** Runs Variant 2 to completion (generate, non-streamed chat completions); a failed run is an error, not a partial answer. */
  async generate(request: AgentRequest): Promise<GeneratedAnswer> {
    let text = '';
    let retrieval: GeneratedAnswer['retrieval'];
    let sources: readonly string[] = [];
    let covered = true;
    const platformToolCalls: GeneratedAnswer['platformToolCalls'][number][] = [];
    for await (const event of this.variant2Run(request)) {
      if (event.type === 'retrieval-start')
        retrieval = { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args, snippets: [] };
      else if (event.type === 'retrieval-result' && retrieval !== undefined)
        retrieval = { ...retrieval, snippets: event.snippets, ...(event.notice === undefined ? {} : { notice: event.notice }) };
      else if (event.type === 'text-delta') text += event.delta;
      else if (event.type === 'finish') ({ sources, covered } = event);
      else if (event.type === 'frontend-tool-call')
        platformToolCalls.push({ toolCallId: event.toolCallId, toolName: event.toolName, argumentsText: event.argumentsText });
      else if (event.type === 'error') throw new KnowledgeError(event.code, event.message);
    }
    return { runId: request.runId, text, sources, covered, retrieval, platformToolCalls };
  }

  private retrieve(namespace: string, query: string, signal: AbortSignal): Promise<SearchOutcome> {
    return this.options.search.search(namespace, query, { mode: this.options.retrieval, limit: this.options.topK, signal });
  }

  private run(
    request: AgentRequest,
    history: ReturnType<typeof sanitizeConversation>,
    query: string,
    retrieval: { toolName: string; retrieve: Retriever; sourceLabel: (snippet: Snippet) => string },
  ): AsyncGenerator<AgentEvent> {
    const chat = this.chatModel();
    const standaloneQuery = (signal: AbortSignal) => this.standaloneQuery(chat, history, query, signal);
    const { storagePath, coverageCheck, questions } = this.options;
    let namespaceExists = false;
    const run = withLinkedSignal([request.signal, this.options.shutdown], async function* (runSignal) {
      yield* runAgent({
        namespace: request.namespace,
        query: await standaloneQuery(runSignal),
        history,
        platformTools: request.platformTools,
        retrievalToolName: retrieval.toolName,
        retrieve: async (namespace, text, signal) => {
          const outcome = await retrieval.retrieve(namespace, text, signal);
          namespaceExists = outcome.namespaceExists;
          return {
            snippets: toSnippets(outcome, storagePath),
            namespaceExists: outcome.namespaceExists,
            ...(outcome.notice === undefined ? {} : { notice: outcome.notice }),
            ...(outcome.relevance === undefined ? {} : { relevance: outcome.relevance }),
          };
        },
        sourceLabel: retrieval.sourceLabel,
        coverageCheck,
        chat,
        signal: runSignal,
      });
    });
    if (questions === undefined) return run;
    // A question to a namespace that does not exist teaches nothing about its docs, and has no log to go in.
    return recordedRun(run, { runId: request.runId, channel: request.channel, question: query }, (record) => {
      if (namespaceExists) questions.record(request.namespace, record);
    });
  }

  /**
   * The search query for the newest question: as asked, or, for a follow-up, rewritten by the model from the
   * conversation (the extractive model, or a failed rewrite, carries the earlier questions' key words instead).
   */
  private async standaloneQuery(chat: ChatModel, history: readonly ChatMessage[], question: string, signal: AbortSignal): Promise<string> {
    const earlierQuestions = history
      .filter((message) => message.role === 'user')
      .slice(0, -1)
      .map((message) => removeMention(message.content, this.options.mention));
    if (earlierQuestions.length === 0 || !looksLikeFollowUp(question)) return question;
    if (chat.id !== extractiveModelId) {
      try {
        const rewritten = await rewriteWithModel(chat, history, question, signal);
        if (rewritten !== undefined) return rewritten;
      } catch (error) {
        // A provider failure or an abort falls back to carrying words; the retrieval that follows reports an abort.
        if (!isKnowledgeError(error) && !signal.aborted) throw error;
      }
    }
    return carryEarlierTerms(question, earlierQuestions);
  }
}

/**
 * Runs `run` with a signal aborted (with the same reason) by whichever of `signals` aborts first; the link is undone
 * when the run ends. Node 20's AbortSignal.any leaks every signal it links to a long-lived one such as shutdown's.
 */
async function* withLinkedSignal(
  signals: readonly (AbortSignal | undefined)[],
  run: (signal: AbortSignal) => AsyncGenerator<AgentEvent>,
): AsyncGenerator<AgentEvent> {
  const controller = new AbortController();
  const links = signals.flatMap((signal) => (signal === undefined ? [] : [{ signal, abort: () => controller.abort(signal.reason) }]));
  for (const link of links) {
    if (link.signal.aborted) link.abort();
    else link.signal.addEventListener('abort', link.abort, { once: true });
  }
  try {
    yield* run(controller.signal);
  } finally {
    for (const link of links) link.signal.removeEventListener('abort', link.abort);
  }
}
