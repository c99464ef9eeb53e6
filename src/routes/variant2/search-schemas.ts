// Request and response schemas of Variant 2's search, POST /api/tools/searchDocs and its Mastra forms (the request
// type derives from them; responses are for the API reference only, see RouteDocumentation).
import { z } from 'zod';
import { closedBody, namespaceFieldSchema, searchModeSchema, searchQuerySchema } from '../shared/index.js';

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
    as_of: z.string().describe('When its content was last fetched, or found unchanged by a refresh of its registered source (ISO 8601).'),
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
