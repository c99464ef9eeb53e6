// Prepares agent runs for both variants: the namespace, the query, the sanitized history and the retriever.
import type { ChatModel, ToolDefinition } from '../providers/chat-model.js';
import type { SearchService } from '../search/search-service.js';
import type { AgentEvent } from './agent-event.js';
import { latestUserText, sanitizeConversation, type IncomingMessage } from './conversation.js';
import { containsMention, removeMention } from './mention.js';
import { runAgent } from './run-agent.js';
import { toSnippets, type Snippet } from './snippet.js';

export interface AgentServiceOptions {
  readonly chat: ChatModel | undefined;
  readonly search: SearchService;
  readonly topK: number;
  readonly mention: string;
  /** The storage root as configured, for the storage paths reported in matches. */
  readonly storagePath: string;
}

export interface AgentRequest {
  readonly namespace: string;
  readonly messages: readonly IncomingMessage[];
  readonly platformTools: readonly ToolDefinition[];
  readonly signal: AbortSignal;
}

export class AgentService {
  constructor(private readonly options: AgentServiceOptions) {}

  /** False when no provider key was configured: the agent routes answer 503. */
  get available(): boolean {
    return this.options.chat !== undefined;
  }

  /** Variant 1: answers only when the newest user message carries the mention; undefined means stay silent. */
  variant1Run(request: AgentRequest): AsyncGenerator<AgentEvent> | undefined {
    const history = sanitizeConversation(request.messages);
    const latest = latestUserText(history);
    if (latest === undefined || !containsMention(latest, this.options.mention)) return undefined;
    return this.run(request, history, removeMention(latest, this.options.mention), 'search_docs', (snippet) => snippet.title);
  }

  private run(
    request: AgentRequest,
    history: ReturnType<typeof sanitizeConversation>,
    query: string,
    retrievalToolName: string,
    sourceLabel: (snippet: Snippet) => string,
  ): AsyncGenerator<AgentEvent> {
    const chat = this.options.chat;
    if (chat === undefined) throw new Error('agent run requested without a chat model');
    return runAgent({
      namespace: request.namespace,
      query,
      history,
      platformTools: request.platformTools,
      retrievalToolName,
      retrieve: async (namespace, text, signal) => toSnippets(await this.options.search.searchByEmbedding(namespace, text, this.options.topK, signal), this.options.storagePath),
      sourceLabel,
      chat,
      signal: request.signal,
    });
  }
}
