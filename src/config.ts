// Configuration: read once from the environment at start-up, validated with one schema, frozen.
// Every other module receives the Config; nothing else reads process.env.
import { accessSync, constants, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { defaultConversionTimeoutMs } from './ingest/document-converter.js';
import { grantAll, minimumTokenLength, parseTokenGrants, type TokenGrants } from './auth/token-grants.js';
import { durationHelp, parseDuration, type QuestionLogMode } from './insights/index.js';
import type { HttpRerankSettings } from './providers/http-rerank-model.js';
import type { ProviderSettings } from './providers/select-models.js';
import { sanitizeNamespace } from './store/namespace-name.js';

const defaultChatModel = 'gpt-4o-mini';

const optionalText = z
  .string()
  .transform((value) => value.trim())
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const integerText = (minimum: number, maximum: number, rangeMessage?: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(minimum, rangeMessage).max(maximum, rangeMessage));

const booleanText = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ['true', 'false', '1', '0', 'yes', 'no', ''].includes(value), 'must be true or false')
  .transform((value) => ['true', '1', 'yes'].includes(value));

/** The variables the service reads, under their Variant 1 names; aliases are folded in before parsing. */
const environmentSchema = z.object({
  HOST: optionalText.default('127.0.0.1'),
  PORT: integerText(0, 65535).default(3000),
  LLM_API_KEY: optionalText,
  LLM_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  KNOWLEDGE_AGENT_MODEL: optionalText.default(defaultChatModel),
  // Left out: chosen from the provider settings (see selectModels).
  KNOWLEDGE_AGENT_EMBEDDING_MODEL: optionalText,
  KNOWLEDGE_AGENT_TOP_K: integerText(0, 20).default(4),
  KNOWLEDGE_AGENT_TEMPERATURE: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'must be a number from 0 to 2')
    .transform(Number)
    .pipe(z.number().min(0, 'must be from 0 to 2').max(2, 'must be from 0 to 2'))
    .default(0.2),
  KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: optionalText.default('docs'),
  KNOWLEDGE_AGENT_STORAGE_PATH: optionalText.default('knowledge'),
  // Cluster mode: PostgreSQL holds the namespaces instead of the storage root.
  KNOWLEDGE_AGENT_DATABASE_URL: optionalText.pipe(
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
  ),
  KNOWLEDGE_AGENT_MENTION: optionalText.default('@knowledge'),
  KNOWLEDGE_AGENT_WRITE_TOKENS: optionalText,
  KNOWLEDGE_AGENT_READ_TOKENS: optionalText,
  KNOWLEDGE_AGENT_METRICS_TOKEN: optionalText.pipe(
    z
      .string()
      .regex(/^\S+$/, 'must not contain spaces')
      .min(minimumTokenLength, `must be at least ${minimumTokenLength} characters`)
      .optional(),
  ),
  KNOWLEDGE_AGENT_FILE_ROOTS: optionalText,
  KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS: booleanText.default(false),
  KNOWLEDGE_AGENT_RATE_LIMIT: integerText(0, 1_000_000).default(60),
  // Connection time-outs, in milliseconds (see Config.timeouts).
  KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: integerText(100, 3_600_000).default(10_000),
  KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: integerText(100, 3_600_000).default(120_000),
  KNOWLEDGE_AGENT_KEEP_ALIVE_TIMEOUT_MS: integerText(100, 3_600_000).default(10_000),
  KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS: integerText(0, 3_600_000).default(300_000),
  KNOWLEDGE_AGENT_RETRIEVAL: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['embedding', 'lexical', 'hybrid'], { error: 'must be embedding, lexical or hybrid' }))
    .default('hybrid'),
  KNOWLEDGE_AGENT_COVERAGE_CHECK: booleanText.default(true),
  KNOWLEDGE_AGENT_CONVERSION_WORKERS: integerText(1, 64).optional(),
  // Milliseconds one document's conversion may take.
  KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: integerText(1000, 3_600_000).default(defaultConversionTimeoutMs),
  // Milliseconds between two looks for registered sources whose scheduled refresh is due.
  KNOWLEDGE_AGENT_SOURCE_CHECK_MS: integerText(100, 3_600_000).default(15_000),
  // Reranking a search's best candidates with a rerank model (see Config.rerank); none when no model is named.
  KNOWLEDGE_AGENT_RERANK_MODEL: optionalText,
  KNOWLEDGE_AGENT_RERANK_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  KNOWLEDGE_AGENT_RERANK_API_KEY: optionalText,
  KNOWLEDGE_AGENT_RERANK_CANDIDATES: integerText(5, 100, 'must be from 5 to 100').default(40),
  // Milliseconds.
  KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: integerText(100, 600_000, 'must be from 100 to 600000').default(10_000),
  // The question log (see Config.questionLog).
  KNOWLEDGE_AGENT_QUESTION_LOG: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['off', 'counts', 'full'], { error: 'must be off, counts or full' }))
    .default('full'),
  KNOWLEDGE_AGENT_QUESTION_RETENTION: z
    .string()
    .transform((text, context) => {
      const milliseconds = parseDuration(text);
      if (milliseconds === undefined) context.addIssue({ code: 'custom', message: `must be ${durationHelp}` });
      return milliseconds ?? 0;
    })
    .default(90 * 86_400_000),
  // Bytes the loaded namespaces may hold together (see Config.memoryBudget); left out: defaultMemoryBudget().
  KNOWLEDGE_AGENT_MEMORY_BUDGET: optionalText.transform((text, context) => {
    if (text === undefined) return undefined;
    const bytes = parseByteSize(text);
    if (bytes === undefined) context.addIssue({ code: 'custom', message: 'must be a size such as 512MB, 2GB or a number of bytes' });
    else if (bytes < minimumMemoryBudget) context.addIssue({ code: 'custom', message: 'must be at least 1MB' });
    return bytes;
  }),
});

const minimumMemoryBudget = 1 << 20;
const byteUnits: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 2 ** 10,
  kib: 2 ** 10,
  mb: 2 ** 20,
  mib: 2 ** 20,
  gb: 2 ** 30,
  gib: 2 ** 30,
  tb: 2 ** 40,
  tib: 2 ** 40,
};

/** `2GB`, `512 MB`, `1.5GiB` or a number of bytes; units are powers of 1024, as memory is counted. */
function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match === null ? undefined : byteUnits[(match[2] ?? '').toLowerCase()];
  return match === null || unit === undefined ? undefined : Math.floor(Number(match[1]) * unit);
}

/**
 * Half the memory the process may use (a container's limit, else the machine's), and no more than V8's heap limit:
 * the estimate counts the indexes alone, and requests, ingests, the local model and the collector's headroom need the
 * rest; about half of the estimate (chunk text and maps) lives in V8's heap, so the heap limit keeps that half at
 * most half the heap.
 */
function defaultMemoryBudget(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const memory = constrained > 0 && constrained < totalmem() ? constrained : totalmem();
  return Math.min(Math.floor(memory / 2), getHeapStatistics().heap_size_limit);
}

/**
 * Two conversions at once even on 2 cores: one slow page (up to its time limit) then never holds up the rest, and
 * the event loop still gets its share of the CPU from the operating system's scheduler.
 */
export function defaultConversionWorkers(cores = availableParallelism()): number {
  return Math.min(4, Math.max(2, cores - 1));
}

/** Variant 2 names accepted for the same settings; the Variant 1 name wins when both are set. */
const aliases: Record<string, string> = {
  LLM_MODEL: 'KNOWLEDGE_AGENT_MODEL',
  TEMPERATURE: 'KNOWLEDGE_AGENT_TEMPERATURE',
  KNOWLEDGE_DIR: 'KNOWLEDGE_AGENT_STORAGE_PATH',
};

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly provider: ProviderSettings;
  readonly topK: number;
  /** How the agent retrieves its snippets. */
  readonly retrieval: 'embedding' | 'lexical' | 'hybrid';
  /** Whether questions whose snippets fall below the relevance floor are answered "not covered" (agent/coverage.ts). */
  readonly coverageCheck: boolean;
  readonly defaultNamespace: string;
  /** Storage root as configured (used in reported paths), and its absolute form. */
  readonly storagePath: string;
  readonly storageRoot: string;
  /** Cluster mode: the PostgreSQL database that holds the namespaces, shared by every replica (else the storage root does). */
  readonly databaseUrl: string | undefined;
  readonly mention: string;
  readonly writeTokens: TokenGrants | undefined;
  readonly readTokens: TokenGrants | undefined;
  /** The token a Prometheus scraper presents to /metrics; it sees every namespace there and may do nothing else. */
  readonly metricsToken: TokenGrants | undefined;
  /** Absolute directories that file sources must lie in. */
  readonly fileRoots: readonly string[];
  readonly allowPrivateUrls: boolean;
  /** Requests per minute per client on the ingest and agent routes; 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  /** Milliseconds; how long a client may take before its connection is closed. */
  readonly timeouts: {
    /** To send the request line and headers (a client trickling them byte by byte is cut off). */
    readonly headersMs: number;
    /** To send the whole request, body included (the answer may take longer). */
    readonly requestMs: number;
    /** An idle keep-alive connection between two requests. */
    readonly keepAliveMs: number;
    /** A connection with no traffic either way during a request; 0 turns it off. */
    readonly idleMs: number;
  };
  /** Worker threads converting HTML and PDF documents at once. */
  readonly conversionWorkers: number;
  /**
   * Wall time one document's conversion may take (milliseconds): what stops a document built to stall a worker. On a
   * machine shared with other work a large manual takes several times its usual few seconds.
   */
  readonly conversionTimeoutMs: number;
  /** Milliseconds between two looks for registered sources due for their scheduled refresh. */
  readonly sourceCheckMs: number;
  /**
   * The rerank model that reorders every search's best candidates (a local or third-party server's `/rerank`
   * endpoint), the key sent to it, and how many candidates it reads; undefined: no reranking.
   */
  readonly rerank: (HttpRerankSettings & { readonly candidates: number }) | undefined;
  /** Bytes the loaded namespaces may hold together, estimated; the least recently used are closed beyond it. */
  readonly memoryBudget: number;
  /** What is kept of every answered question, and for how long (milliseconds). */
  readonly questionLog: { readonly mode: QuestionLogMode; readonly retentionMs: number };
  readonly limits: {
    /** Bytes per file or download. */
    readonly maxSourceBytes: number;
    /** Bytes per text snippet. */
    readonly maxTextBytes: number;
    /** Bytes per request body (JSON or multipart). */
    readonly maxBodyBytes: number;
    /** Milliseconds a URL download may take. */
    readonly downloadTimeoutMs: number;
    /** Results any retriever returns at most. */
    readonly maxResults: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

function foldAliases(environment: Record<string, string | undefined>): Record<string, string | undefined> {
  const folded: Record<string, string | undefined> = {};
  for (const key of Object.keys(environmentSchema.shape)) folded[key] = environment[key];
  for (const [alias, name] of Object.entries(aliases)) {
    if ((folded[name] === undefined || folded[name]?.trim() === '') && environment[alias] !== undefined) {
      folded[name] = environment[alias];
    }
  }
  return folded;
}

function variableName(key: string, environment: Record<string, string | undefined>): string {
  const alias = Object.entries(aliases).find(([, name]) => name === key)?.[0];
  return alias !== undefined && environment[key] === undefined && environment[alias] !== undefined ? alias : key;
}

/**
 * Creates the missing folders of `directory` one at a time. Not `mkdirSync(directory, { recursive: true })`: Node
 * retries a folder that fails with ENOENT under an existing parent (a path in /proc or /sys) forever, at full CPU.
 */
function createDirectories(directory: string): void {
  const missing: string[] = [];
  for (let current = resolve(directory); !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Created meanwhile by another process: what was wanted.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function ensureWritableDirectory(directory: string): string | undefined {
  try {
    createDirectories(directory);
    accessSync(directory, constants.W_OK | constants.R_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

type Variables = z.output<typeof environmentSchema>;

/** Variables that hold secrets (keys, tokens, a URL with a password): a problem with one never repeats its value. */
const secretVariables: ReadonlySet<string> = new Set([
  'LLM_API_KEY',
  'KNOWLEDGE_AGENT_WRITE_TOKENS',
  'KNOWLEDGE_AGENT_READ_TOKENS',
  'KNOWLEDGE_AGENT_METRICS_TOKEN',
  'KNOWLEDGE_AGENT_DATABASE_URL',
  'KNOWLEDGE_AGENT_RERANK_API_KEY',
]);

/**
 * Parses each variable on its own: one invalid value then hides neither the others' problems nor those of the checks
 * that follow (which run on every variable that did parse).
 */
function parseVariables(environment: Record<string, string | undefined>): { values: Partial<Variables>; problems: string[] } {
  const folded = foldAliases(environment);
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, schema] of Object.entries(environmentSchema.shape)) {
    const result = schema.safeParse(folded[key]);
    if (result.success) {
      values[key] = result.data;
      continue;
    }
    const name = variableName(key, environment);
    const shown = secretVariables.has(key) ? 'its value is a secret and not shown' : `got ${JSON.stringify(environment[name])}`;
    for (const issue of result.error.issues) problems.push(`${name}: ${issue.message} (${shown})`);
  }
  return { values: values as Partial<Variables>, problems };
}

/**
 * Runs `check` on a value that parsed (undefined, from an unset optional or a failed variable, is passed through); a
 * thrown message becomes a problem and the result undefined.
 */
function checked<Value, Result>(problems: string[], value: Value | undefined, check: (value: Value) => Result): Result | undefined {
  if (value === undefined) return undefined;
  try {
    return check(value);
  } catch (error) {
    problems.push((error as Error).message);
    return undefined;
  }
}

/**
 * The key sent to the rerank server: its own, or LLM_API_KEY when the reranker is reached at LLM_BASE_URL's origin
 * (a key for one provider is never sent to another).
 */
function rerankApiKey(parsed: Variables, rerankBaseUrl: string): string | undefined {
  if (parsed.KNOWLEDGE_AGENT_RERANK_API_KEY !== undefined) return parsed.KNOWLEDGE_AGENT_RERANK_API_KEY;
  const sameServer = parsed.LLM_BASE_URL !== undefined && new URL(parsed.LLM_BASE_URL).origin === new URL(rerankBaseUrl).origin;
  return sameServer ? parsed.LLM_API_KEY : undefined;
}

/** The namespace a grant's name stands for once sanitized as requests are, or undefined when none does. */
function namespaceAsGranted(namespace: string): string | undefined {
  try {
    return sanitizeNamespace(namespace);
  } catch {
    return undefined;
  }
}

/** Parses and checks the whole environment, reporting every problem at once, one line each. */
export function loadConfig(environment: Record<string, string | undefined>, workingDirectory = process.cwd()): Config {
  const { values, problems } = parseVariables(environment);

  const grants = (name: 'KNOWLEDGE_AGENT_WRITE_TOKENS' | 'KNOWLEDGE_AGENT_READ_TOKENS') =>
    checked(problems, values[name], (text) => {
      let parsed: TokenGrants;
      try {
        parsed = parseTokenGrants(text);
      } catch (error) {
        // The message names the variable and never quotes the value: it holds secrets.
        throw new Error(`${name}: ${(error as Error).message}`, { cause: error });
      }
      // Requests name namespaces after sanitizing; a grant written otherwise ("team.docs") would never match one.
      for (const namespace of parsed.flatMap((grant) => [...grant.namespaces])) {
        if (namespace === '*') continue;
        const sanitized = namespaceAsGranted(namespace);
        if (sanitized !== namespace)
          throw new Error(
            `${name}: the namespace ${JSON.stringify(namespace)} is not a namespace name (letters, digits, - and _, at most 64)${sanitized === undefined ? '' : `; requests for it use ${JSON.stringify(sanitized)}`}`,
          );
      }
      return parsed;
    });
  const writeTokens = grants('KNOWLEDGE_AGENT_WRITE_TOKENS');
  const readTokens = grants('KNOWLEDGE_AGENT_READ_TOKENS');

  const defaultNamespace = checked(problems, values.KNOWLEDGE_AGENT_DEFAULT_NAMESPACE, (name) =>
    sanitizeNamespace(name, 'KNOWLEDGE_AGENT_DEFAULT_NAMESPACE'),
  );

  const storageRoot = checked(problems, values.KNOWLEDGE_AGENT_STORAGE_PATH, (path) => {
    const root = resolve(workingDirectory, path);
    const problem = ensureWritableDirectory(root);
    if (problem === undefined) return root;
    const name = variableName('KNOWLEDGE_AGENT_STORAGE_PATH', environment);
    throw new Error(`${name}: storage root ${root} is not a writable directory (${problem})`);
  });
  const fileRoots = (values.KNOWLEDGE_AGENT_FILE_ROOTS ?? workingDirectory)
    .split(':')
    .filter((root) => root.trim() !== '')
    .map((root) => resolve(workingDirectory, root.trim()))
    // File sources are compared after resolving symlinks, so the roots are too.
    .map((root) => {
      try {
        return realpathSync(root);
      } catch {
        return root;
      }
    });
  if (fileRoots.length === 0) problems.push('KNOWLEDGE_AGENT_FILE_ROOTS: must name at least one directory');

  const { KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: headersMs, KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: requestMs } = values;
  if (headersMs !== undefined && requestMs !== undefined && headersMs > requestMs) {
    problems.push(`KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: must not exceed KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS (${headersMs} > ${requestMs})`);
  }

  const rerankBaseUrl = values.KNOWLEDGE_AGENT_RERANK_BASE_URL ?? values.LLM_BASE_URL;
  // A base URL that was set but is invalid has its own problem already.
  const given = (name: string) => (environment[name] ?? '').trim() !== '';
  if (values.KNOWLEDGE_AGENT_RERANK_MODEL !== undefined && !given('KNOWLEDGE_AGENT_RERANK_BASE_URL') && !given('LLM_BASE_URL')) {
    problems.push(
      'KNOWLEDGE_AGENT_RERANK_MODEL: needs the rerank server: set KNOWLEDGE_AGENT_RERANK_BASE_URL or LLM_BASE_URL (the official OpenAI API has no rerank endpoint)',
    );
  }

  // With no problem, every variable parsed (one that did not is a problem) and the two values derived from them are set.
  if (problems.length > 0 || defaultNamespace === undefined || storageRoot === undefined) throw new ConfigError(problems);
  const parsed = values as Variables;

  return Object.freeze({
    host: parsed.HOST,
    port: parsed.PORT,
    provider: Object.freeze({
      apiKey: parsed.LLM_API_KEY,
      baseUrl: parsed.LLM_BASE_URL,
      chatModel: parsed.KNOWLEDGE_AGENT_MODEL,
      embeddingModel: parsed.KNOWLEDGE_AGENT_EMBEDDING_MODEL,
      temperature: parsed.KNOWLEDGE_AGENT_TEMPERATURE,
    }),
    topK: parsed.KNOWLEDGE_AGENT_TOP_K,
    retrieval: parsed.KNOWLEDGE_AGENT_RETRIEVAL,
    coverageCheck: parsed.KNOWLEDGE_AGENT_COVERAGE_CHECK,
    defaultNamespace,
    storagePath: parsed.KNOWLEDGE_AGENT_STORAGE_PATH,
    storageRoot,
    databaseUrl: parsed.KNOWLEDGE_AGENT_DATABASE_URL,
    mention: parsed.KNOWLEDGE_AGENT_MENTION,
    writeTokens,
    readTokens,
    metricsToken: parsed.KNOWLEDGE_AGENT_METRICS_TOKEN === undefined ? undefined : grantAll(parsed.KNOWLEDGE_AGENT_METRICS_TOKEN),
    fileRoots: Object.freeze(fileRoots),
    allowPrivateUrls: parsed.KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS,
    rateLimitPerMinute: parsed.KNOWLEDGE_AGENT_RATE_LIMIT,
    timeouts: Object.freeze({
      headersMs: parsed.KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS,
      requestMs: parsed.KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS,
      keepAliveMs: parsed.KNOWLEDGE_AGENT_KEEP_ALIVE_TIMEOUT_MS,
      idleMs: parsed.KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS,
    }),
    conversionWorkers: parsed.KNOWLEDGE_AGENT_CONVERSION_WORKERS ?? defaultConversionWorkers(),
    conversionTimeoutMs: parsed.KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS,
    sourceCheckMs: parsed.KNOWLEDGE_AGENT_SOURCE_CHECK_MS,
    rerank:
      parsed.KNOWLEDGE_AGENT_RERANK_MODEL === undefined || rerankBaseUrl === undefined
        ? undefined
        : Object.freeze({
            model: parsed.KNOWLEDGE_AGENT_RERANK_MODEL,
            baseUrl: rerankBaseUrl,
            apiKey: rerankApiKey(parsed, rerankBaseUrl),
            timeoutMs: parsed.KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS,
            candidates: parsed.KNOWLEDGE_AGENT_RERANK_CANDIDATES,
          }),
    memoryBudget: parsed.KNOWLEDGE_AGENT_MEMORY_BUDGET ?? defaultMemoryBudget(),
    questionLog: Object.freeze({ mode: parsed.KNOWLEDGE_AGENT_QUESTION_LOG, retentionMs: parsed.KNOWLEDGE_AGENT_QUESTION_RETENTION }),
    limits: Object.freeze({
      maxSourceBytes: 6 * 1000 * 1000,
      maxTextBytes: 200 * 1000,
      maxBodyBytes: 8 * 1000 * 1000,
      downloadTimeoutMs: 15_000,
      maxResults: 20,
    }),
  });
}
