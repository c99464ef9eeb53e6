// Request and response schemas of Variant 1's search, POST /tools/search (the request type derives from them;
// the response is for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { closedBody, namespaceFieldSchema, searchModeSchema, searchQuerySchema } from '../shared/index.js';

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

const matchSchema = z
  .object({
    chunk_id: z.string(),
    score: z.number(),
    source: z.string(),
    title: z.string(),
    preview: z.string(),
    as_of: z.string().describe('When its content was last fetched, or found unchanged by a refresh of its registered source (ISO 8601).'),
  })
  .meta({
    id: 'Match',
    description:
      "The seed's fields, and `as_of` (registered sources). `score` is the cosine similarity (embedding), the BM25 score (lexical) or the fused score (hybrid).",
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
