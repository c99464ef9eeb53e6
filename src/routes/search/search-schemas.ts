// Request and response schemas of the search routes: what both variants share first, then each variant's (request
// types derive from them; responses are for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { searchModes } from '../../search/search-service.js';
import { closedBody, namespaceFieldSchema } from '../shared/index.js';

const searchModeSchema = z.enum(searchModes);

/** A search query: something other than whitespace (checked before trimming, so the API reference can state it as a pattern). */
const searchQuerySchema = z.string().max(2_000).regex(/\S/, 'must not be empty').trim();

// Variant 1: POST /tools/search.

export const variant1SearchBodySchema = closedBody(
  {
    namespace: namespaceFieldSchema,
    query: searchQuerySchema,
    top_k: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Matches at most; KNOWLEDGE_AGENT_TOP_K when left out; 0 gives none; above 20 gives 20.'),
    mode: searchModeSchema.default('embedding').describe('Ranking: cosine similarity of embeddings, BM25, or both fused.'),
  },
  { limit: 'Variant 1 names it top_k' },
);

const matchSchema = z.object({ chunk_id: z.string(), score: z.number(), source: z.string(), title: z.string(), preview: z.string() }).meta({
  id: 'Match',
  description: '`score` is the cosine similarity (embedding), the BM25 score (lexical) or the fused score (hybrid).',
});

export const variant1SearchResponseSchema = z.object({
  namespace: z.string(),
  query: z.string(),
  mode: searchModeSchema.describe('The ranking actually used.'),
  matches: z.array(matchSchema),
  notice: z
    .string()
    .optional()
    .describe(
      'Why the ranking differs from the one asked for (for example lexical while a namespace is being embedded), or that the namespace does not exist.',
    ),
});

// Variant 2: POST /api/tools/searchDocs and its Mastra forms.

export const searchDocsBodySchema = closedBody(
  {
    namespace: namespaceFieldSchema,
    query: searchQuerySchema,
    limit: z.number().int().min(0).optional().describe('Results at most; 5 when left out; above 20 gives 20.'),
    mode: searchModeSchema
      .default('lexical')
      .describe('Ranking: BM25 over title, headings and body, cosine similarity of embeddings, or both fused.'),
  },
  { top_k: 'Variant 2 names it limit' },
);
export type SearchDocsBody = z.infer<typeof searchDocsBodySchema>;

export const searchDocsResultSchema = z
  .object({
    file: z.string().describe('The citation label.'),
    title: z.string(),
    score: z.number(),
    excerpt: z.string().describe('Centred on the matching terms.'),
    origin: z.string().describe('Where the document came from: its URL, or its path or upload name as ingested.'),
    headings: z.array(z.string()).describe('The headings above the passage, outermost first.'),
  })
  .meta({ id: 'SearchDocsResult' });

export const searchDocsResponseSchema = z.object({
  namespace: z.string(),
  query: z.string(),
  mode: searchModeSchema.describe('The ranking actually used.'),
  results: z.array(searchDocsResultSchema),
  warnings: z
    .array(z.string())
    .describe('Files that could not be read, why the ranking differs from the one asked for, and that the namespace does not exist.'),
});
