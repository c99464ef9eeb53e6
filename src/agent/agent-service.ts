// Prepares agent runs: the namespace, the query, the sanitized history and the retriever. What differs between wire
// formats (the retrieval tool's name, how a source is labelled, the mention rule) comes in as an AnswerFormat.
import type { ChatMessage, ChatModel, ToolDefinition } from '../providers/chat-model.js';
import { KnowledgeError, isKnowledgeError } from '../errors.js';
import { linkSignals } from '../concurrency.js';
import type { SearchMode, SearchService } from '../search/search-service.js';
import type { AgentEvent } from './agent-event.js';
import { latestUserText, sanitizeConversation, type IncomingMessage } from './conversation.js';
import { containsMention, removeMention } from './mention.js';
import { extractiveModelId } from '../providers/extractive-chat-model.js';
import { runAgent } from './run-agent.js';
import { carryEarlierTerms, looksLikeFollowUp, rewriteWithModel } from './standalone-query.js';
import { toSnippets, type Snippet } from '../search/snippet.js';
import type { AskedQuestion } from '../store/question-log.js';
import { recordedRun } from './recorded-run.js';
import type { NamespaceName } from '../store/namespace-name.js';

export interface AgentServiceOptions {
  readonly chat: ChatModel | undefined;
  readonly search: SearchService;
  readonly topK: number;
  /** How the agent retrieves (KNOWLEDGE_AGENT_RETRIEVAL). */
  readonly retrieval: SearchMode;
  /** Answer "not covered" when the snippets fall below the relevance floor (KNOWLEDGE_AGENT_COVERAGE_CHECK). */
  readonly coverageCheck: boolean;
  readonly mention: string;
  /** The app's shutdown signal: aborting it ends every run with its reason as the final error event. */
  readonly shutdown?: AbortSignal;
  /** Where every answered question goes (the question log's recorder, which returns at once); absent: nowhere. */
  readonly questions?: { record(namespace: NamespaceName, question: AskedQuestion): void };
}

export interface AgentRequest {
  /** The run's id, as the answer's wire format carries it: feedback on the answer names it. */
  readonly runId: string;
  /** The route the question came by (variant1, ag-ui, generate, mastra, openai), for the question log. */
  readonly channel: string;
  readonly namespace: NamespaceName;
  readonly messages: readonly IncomingMessage[];
  readonly platformTools: readonly ToolDefinition[];
  readonly signal: AbortSignal;
}

/** What a wire format fixes about its answers; the route of each format passes its own. */
export interface AnswerFormat {
  /** The retrieval tool's name as the format shows it (`search_docs`, `searchDocs`). */
  readonly retrievalToolName: string;
  /** How the Sources line names a cited snippet. */
  readonly sourceLabel: (snippet: Snippet) => string;
  /** Answer only a newest user message that carries the mention (else stay silent); the mention never reaches the search. */
  readonly requiresMention: boolean;
}

/** The whole of a run, for the answers that are not streamed (generate, chat completions). */
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

  /** A run of the agent in `format`; undefined when the format requires the mention and the newest user message lacks it. */
  answer(request: AgentRequest, format: AnswerFormat): AsyncGenerator<AgentEvent> | undefined {
    const history = sanitizeConversation(request.messages);
    const latest = latestUserText(history);
    if (format.requiresMention && (latest === undefined || !containsMention(latest, this.options.mention))) return undefined;
    return this.run(request, history, removeMention(latest ?? '', this.options.mention), format);
  }

  /** Runs the agent to completion; a failed run is an error, not a partial answer, and a silent one an empty answer. */
  async generate(request: AgentRequest, format: AnswerFormat): Promise<GeneratedAnswer> {
    let text = '';
    let retrieval: GeneratedAnswer['retrieval'];
    let sources: readonly string[] = [];
    let covered = true;
    const platformToolCalls: GeneratedAnswer['platformToolCalls'][number][] = [];
    for await (const event of this.answer(request, format) ?? []) {
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

  private run(
    request: AgentRequest,
    history: ReturnType<typeof sanitizeConversation>,
    query: string,
    format: AnswerFormat,
  ): AsyncGenerator<AgentEvent> {
    const chat = this.chatModel();
    const standaloneQuery = (signal: AbortSignal) => this.standaloneQuery(chat, history, query, signal);
    const { search, retrieval, topK, coverageCheck, questions } = this.options;
    let namespaceExists = false;
    const run = withLinkedSignal([request.signal, this.options.shutdown], async function* (runSignal) {
      yield* runAgent({
        namespace: request.namespace,
        query: await standaloneQuery(runSignal),
        history,
        platformTools: request.platformTools,
        retrievalToolName: format.retrievalToolName,
        retrieve: async (namespace, text, signal) => {
          const outcome = await search.search(namespace, text, { mode: retrieval, limit: topK, signal });
          namespaceExists = outcome.namespaceExists;
          return {
            snippets: toSnippets(outcome),
            namespaceExists: outcome.namespaceExists,
            ...(outcome.notice === undefined ? {} : { notice: outcome.notice }),
            ...(outcome.relevance === undefined ? {} : { relevance: outcome.relevance }),
          };
        },
        sourceLabel: format.sourceLabel,
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

/** Runs `run` with a signal aborted by whichever of `signals` aborts first (see linkSignals). */
async function* withLinkedSignal(
  signals: readonly (AbortSignal | undefined)[],
  run: (signal: AbortSignal) => AsyncGenerator<AgentEvent>,
): AsyncGenerator<AgentEvent> {
  const linked = linkSignals(signals);
  try {
    yield* run(linked.signal);
  } finally {
    linked.unlink();
  }
}
