// Request schemas of the Variant 1 routes; the TypeScript types are derived from them.
import { z } from 'zod';
import { searchModes } from '../search/search-service.js';

/** `crawl` on a URL source follows the site's links (CrawlRequest). */
export const crawlSchema = z.object({
  maxPages: z.number().int().min(1).max(1_000).default(50),
  maxDepth: z.number().int().min(0).max(10).default(2),
  prune: z.boolean().default(false),
});

export const variant1SourceSchema = z.object({
  type: z.enum(['url', 'file', 'text']),
  value: z.string().optional(),
  path: z.string().optional(),
  title: z.string().max(500).optional(),
  crawl: crawlSchema.optional(),
});
export type Variant1Source = z.infer<typeof variant1SourceSchema>;

export const maxSourcesPerRequest = 100;

export const variant1IngestBodySchema = z.object({
  namespace: z.string().max(200).optional(),
  // Each source is checked on its own, so one bad source is reported without failing the others.
  sources: z.array(z.unknown()).min(1, 'must list at least one source').max(maxSourcesPerRequest),
});

export const searchModeSchema = z.enum(searchModes);

export const variant1SearchBodySchema = z.object({
  namespace: z.string().max(200).optional(),
  query: z.string().trim().min(1, 'must not be empty').max(2_000),
  top_k: z.number().int().min(0).optional(),
  mode: searchModeSchema.default('embedding'),
});

export const platformToolSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
  description: z.string().max(2_000).default(''),
  parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
});

export const chatMessageSchema = z.looseObject({ role: z.string(), content: z.unknown().optional() });

export const variant1AgentBodySchema = z.object({
  thread_id: z.string().optional(),
  run_id: z.string().optional(),
  messages: z.array(chatMessageSchema).max(500),
  tool_params: z.object({ namespace: z.string().max(200).optional() }).loose().optional(),
  tools: z.array(platformToolSchema).max(64).optional(),
});
export type Variant1AgentBody = z.infer<typeof variant1AgentBodySchema>;
