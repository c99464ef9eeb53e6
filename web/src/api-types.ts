// The shapes of the service's answers that the playground reads (README "Endpoints", CONTRACT.md).

export interface Health {
  readonly status: string;
  readonly version?: string;
  readonly agent?: string;
  readonly chat_model?: string | null;
  readonly embedding_model?: string | null;
}

export interface NamespaceSummary {
  readonly name: string;
  readonly documents: number;
  readonly chunks: number;
  readonly embedding_model: string | null;
}

export interface DocumentSummary {
  readonly title: string;
  readonly source: string;
  readonly file: string;
  readonly chunks: number;
}

export type SearchMode = 'lexical' | 'embedding' | 'hybrid';

export interface SearchMatch {
  readonly chunk_id: string;
  readonly score: number;
  readonly source: string;
  readonly title: string;
  readonly preview: string;
}

export interface SearchAnswer {
  readonly namespace: string;
  readonly mode: SearchMode;
  readonly matches: readonly SearchMatch[];
  readonly notice?: string;
}

/** One line of an ingest route's `?progress=ndjson` stream. */
export type IngestProgress =
  | {
      readonly type: 'document';
      readonly index: number;
      readonly source: string;
      readonly status: 'saved' | 'updated' | 'skipped';
      readonly file: string;
      readonly chunks: number;
      /** With `updated`: the stored version it replaced. */
      readonly replaced?: { readonly file: string; readonly source: string; readonly ingested_at: string };
      /** Stored without embeddings while the provider is down. */
      readonly warning?: string;
    }
  | { readonly type: 'failed'; readonly index: number; readonly source: string; readonly code: string; readonly error: string }
  | { readonly type: 'skipped'; readonly index: number; readonly source: string; readonly reason: string }
  | { readonly type: 'removed'; readonly index: number; readonly source: string; readonly file: string }
  | { readonly type: 'result'; readonly result: { readonly namespace: string } }
  | { readonly type: 'error'; readonly error: { readonly code: string; readonly message: string } };

/** A retrieved snippet as the AG-UI stream's searchDocs result lists it; its position + 1 is its citation number. */
export interface RetrievedSnippet {
  readonly file: string;
  readonly title: string;
  readonly score: number;
  readonly excerpt: string;
}

/** The AG-UI events the playground acts on (others are ignored). */
export type AgUiEvent =
  | { readonly type: 'RUN_STARTED' }
  | { readonly type: 'TOOL_CALL_START'; readonly toolCallId: string; readonly toolCallName: string }
  | { readonly type: 'TOOL_CALL_ARGS'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'TOOL_CALL_END'; readonly toolCallId: string }
  | { readonly type: 'TOOL_CALL_RESULT'; readonly toolCallId: string; readonly content: string }
  | { readonly type: 'TEXT_MESSAGE_START'; readonly messageId: string }
  | { readonly type: 'TEXT_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'TEXT_MESSAGE_END'; readonly messageId: string }
  | { readonly type: 'RUN_FINISHED' }
  | { readonly type: 'RUN_ERROR'; readonly message: string; readonly code?: string };

/** One day of GET /api/gaps/:namespace's `counts`. */
export interface DayCounts {
  readonly day: string;
  readonly questions: number;
  readonly covered: number;
  readonly not_covered: number;
  readonly rated_up: number;
  readonly rated_down: number;
}

/** GET /api/gaps/:namespace: the parts the Insights view shows (see docs/api.md, the gaps report). */
export interface GapsReport {
  readonly namespace: string;
  readonly since: string;
  readonly log: 'off' | 'counts' | 'full';
  readonly totals: Omit<DayCounts, 'day'>;
  readonly groups: readonly {
    readonly label: string;
    readonly count: number;
    readonly questions: readonly string[];
    readonly pages: readonly { readonly title: string; readonly file: string; readonly origin: string }[];
    readonly comments: readonly string[];
  }[];
  readonly top_questions: readonly { readonly question: string; readonly count: number; readonly not_covered: number }[];
  readonly counts: readonly DayCounts[];
}

export type RegisteredSourceKind = 'page' | 'crawl' | 'sitemap' | 'git';

export interface RefreshSummary {
  readonly trigger: 'added' | 'schedule' | 'manual' | 'webhook';
  readonly started_at: string;
  readonly finished_at: string;
  readonly checked: number;
  readonly unchanged: number;
  readonly updated: number;
  readonly added: number;
  readonly removed: number;
  readonly failed: readonly { readonly url: string; readonly code: string; readonly message: string }[];
}

/** A registered source as /api/sources shows it (its webhook secret never leaves the service). */
export interface RegisteredSource {
  readonly id: string;
  readonly namespace: string;
  readonly kind: RegisteredSourceKind;
  readonly url: string;
  readonly crawl?: { readonly maxPages: number; readonly maxDepth: number; readonly prune: boolean };
  readonly git?: { readonly branch: string; readonly folder: string };
  readonly every: string | null;
  readonly created_at: string;
  readonly last_refresh: RefreshSummary | null;
  readonly next_run_at: string | null;
  readonly webhook: { readonly path: string; readonly secret_set: boolean };
}

/** What the add form sends (POST /api/sources/:namespace); the kind is inferred from the URL when left out. */
export interface NewSource {
  readonly url: string;
  readonly kind?: RegisteredSourceKind;
  readonly crawl?: RegisteredSource['crawl'];
  readonly git?: RegisteredSource['git'];
  readonly every: string | null;
}
