// The wire shapes of registered sources, shared by both route families, MCP and the playground's calls.
import { z } from 'zod';
import { durationHelp, parseDuration } from '../../insights/index.js';
import type { RefreshSummary, RegisteredSource, SourceDefinition } from '../../store/source-registry.js';
import { crawlSchema, namespaceFieldSchema } from '../shared/index.js';

/** The shortest schedule: a refresh a minute. */
const minimumEverySeconds = 60;

const everySchema = z
  .string()
  .regex(/^[1-9][0-9]{0,5}[mhdw]?$/, `every must be ${durationHelp}`)
  .nullable()
  .transform((text, context) => {
    if (text === null) return null;
    const milliseconds = parseDuration(text);
    if (milliseconds === undefined || milliseconds < minimumEverySeconds * 1000) {
      context.addIssue({ code: 'custom', message: `every must be 1m or longer: ${durationHelp}, or null for no schedule` });
      return z.NEVER;
    }
    return milliseconds / 1000;
  })
  .describe(`How often the source is refreshed: ${durationHelp}, at least 1m (such as 30m, 6h, 1d); null for no schedule.`);

const gitSchema = z.object({
  branch: z.string().min(1).max(200).default('main').describe('The branch to follow.'),
  folder: z.string().max(500).default('').describe('The folder of the docs inside the repository; the whole repository when empty.'),
  patterns: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(20)
    .optional()
    .describe('Glob patterns of the files to ingest (`**`, `*`, `?`, `{a,b}`); Markdown, text, HTML and PDF files when left out.'),
  link_template: z
    .string()
    .max(1_000)
    .regex(
      /^https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,4})?\/[A-Za-z0-9._~/{}%-]*\{path\}[A-Za-z0-9._~/{}%?=&#-]*$/,
      'link_template must be an http(s) URL with a {path} placeholder',
    )
    .optional()
    .describe(
      'How a file is cited: `{path}`, `{branch}` and `{commit}` are filled in. GitHub and GitLab repositories link to their file pages when left out.',
    ),
});

const webhookSecretSchema = z
  .string()
  .min(16)
  .max(200)
  .describe("The webhook's shared secret (GitHub's HMAC key, or the token other senders put in a header); never returned.");

export const addSourceSchema = z.object({
  namespace: namespaceFieldSchema,
  url: z
    .string()
    .max(4_000)
    .regex(/^https?:\/\/\S+$/i, 'url must be an http(s) URL')
    .describe('A page, a crawl root, a sitemap (.xml) or a git repository (https). Registering a URL again replaces its settings.'),
  kind: z
    .enum(['page', 'crawl', 'sitemap', 'git'])
    .optional()
    .describe(
      'What the URL is; when left out: `crawl` with `crawl` given, `sitemap` for a .xml URL, `git` with `git` given or a .git URL, else `page`.',
    ),
  crawl: crawlSchema.optional(),
  git: gitSchema.optional(),
  every: everySchema.optional(),
  webhook_secret: webhookSecretSchema.optional(),
});

export const changeSourceSchema = z.object({
  namespace: namespaceFieldSchema,
  crawl: crawlSchema.optional(),
  git: gitSchema.optional(),
  every: everySchema.optional(),
  webhook_secret: webhookSecretSchema.nullable().optional().describe('A new webhook secret, or null to remove it.'),
});

export type AddSourceBody = z.infer<typeof addSourceSchema>;
export type ChangeSourceBody = z.infer<typeof changeSourceSchema>;

/** The definition a request asks for, its kind inferred when left out. */
export function sourceDefinition(body: Omit<AddSourceBody, 'namespace'>): SourceDefinition {
  const kind =
    body.kind ??
    (body.crawl !== undefined
      ? 'crawl'
      : body.git !== undefined || /\.git\/?$/i.test(body.url)
        ? 'git'
        : /\.xml(?:$|[?#])/i.test(body.url)
          ? 'sitemap'
          : 'page');
  const git = kind === 'git' ? toGitSettings(body.git ?? { branch: 'main', folder: '' }) : undefined;
  return {
    kind,
    url: body.url,
    ...(kind === 'crawl' ? { crawl: body.crawl ?? crawlSchema.parse({}) } : {}),
    ...(git === undefined ? {} : { git }),
    everySeconds: body.every ?? null,
    ...(body.webhook_secret === undefined ? {} : { webhookSecret: body.webhook_secret }),
  };
}

export function toGitSettings(git: z.infer<typeof gitSchema>): NonNullable<SourceDefinition['git']> {
  return {
    branch: git.branch,
    folder: git.folder.replace(/^\/+|\/+$/g, ''),
    patterns: git.patterns ?? [],
    ...(git.link_template === undefined ? {} : { linkTemplate: git.link_template }),
  };
}

/** A schedule in its largest whole unit (6h, 90m); schedules are whole minutes, at least one. */
export function formatEvery(seconds: number): string {
  for (const [unit, size] of [
    ['w', 604_800],
    ['d', 86_400],
    ['h', 3_600],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${Math.round(seconds / 60)}m`;
}

const refreshSummarySchema = z.object({
  trigger: z.enum(['added', 'schedule', 'manual', 'webhook']),
  started_at: z.string(),
  finished_at: z.string(),
  checked: z.number().int().describe('Pages or files looked at.'),
  unchanged: z.number().int(),
  updated: z.number().int(),
  added: z.number().int(),
  removed: z.number().int(),
  failed: z.array(z.object({ url: z.string(), code: z.string(), message: z.string() })).describe('Kept as they were; the reasons.'),
});

export const sourceResponseSchema = z.object({
  id: z.string(),
  namespace: z.string(),
  kind: z.enum(['page', 'crawl', 'sitemap', 'git']),
  url: z.string(),
  crawl: crawlSchema.optional(),
  git: gitSchema.optional(),
  every: z.string().nullable().describe('The schedule (such as 6h), or null.'),
  created_at: z.string(),
  last_refresh: refreshSummarySchema.nullable(),
  next_run_at: z.string().nullable(),
  webhook: z
    .object({ path: z.string().describe('Where a push or deploy notification is sent (POST).'), secret_set: z.boolean() })
    .describe('The webhook that refreshes this source.'),
});

function toRefreshResponse(summary: RefreshSummary): z.infer<typeof refreshSummarySchema> {
  const { trigger, startedAt, finishedAt, checked, unchanged, updated, added, removed, failed } = summary;
  return { trigger, started_at: startedAt, finished_at: finishedAt, checked, unchanged, updated, added, removed, failed: [...failed] };
}

/** A source as the API shows it: the webhook secret never leaves the service. */
export function toSourceResponse(source: RegisteredSource): z.infer<typeof sourceResponseSchema> {
  return {
    id: source.id,
    namespace: source.namespace,
    kind: source.kind,
    url: source.url,
    ...(source.crawl === undefined ? {} : { crawl: source.crawl }),
    ...(source.git === undefined
      ? {}
      : {
          git: {
            branch: source.git.branch,
            folder: source.git.folder,
            ...(source.git.patterns.length === 0 ? {} : { patterns: [...source.git.patterns] }),
            ...(source.git.linkTemplate === undefined ? {} : { link_template: source.git.linkTemplate }),
          },
        }),
    every: source.everySeconds === null ? null : formatEvery(source.everySeconds),
    created_at: source.createdAt,
    last_refresh: source.lastRefresh === null ? null : toRefreshResponse(source.lastRefresh),
    next_run_at: source.nextRunAt,
    webhook: {
      path: `/hooks/sources/${encodeURIComponent(source.namespace)}/${source.id}`,
      secret_set: source.webhookSecret !== undefined,
    },
  };
}
