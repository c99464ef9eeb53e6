// Request and response schemas of the feedback and gaps report routes (responses for the API reference only).
import { z } from 'zod';
import { durationHelp, parseDuration } from '../../insights/index.js';
import { namespaceFieldSchema } from '../shared/index.js';

export const feedbackBodySchema = z.object({
  run_id: z
    .string()
    .min(1)
    .max(200)
    .describe(
      "The answer's run id: generate's `runId`, the OpenAI-compatible completion's `id`, AG-UI's and Mastra's `runId`, or the `run_id` sent with a Variant 1 request.",
    ),
  rating: z.enum(['up', 'down']),
  comment: z.string().max(2_000).optional().describe('What was wrong or missing (kept only with KNOWLEDGE_AGENT_QUESTION_LOG=full).'),
});

export const feedbackResponseSchema = z.object({
  run_id: z.string(),
  namespace: z.string().describe('The namespace the run answered from.'),
  rating: z.enum(['up', 'down']),
});

const sinceSchema = z
  .string()
  .regex(/^[1-9]\d{0,5}[mhdw]?$/, `must be ${durationHelp}`)
  .optional()
  .transform((text) => (text === undefined ? undefined : parseDuration(text)))
  .describe('How far back, such as 7d or 24h (m, h, d, w); everything the question log keeps when left out.');

const formatSchema = z.enum(['json', 'csv']).default('json').describe('`csv`: one row per gap group, as text/csv.');

export const gapsQuerySchema = z.object({ namespace: namespaceFieldSchema, since: sinceSchema, format: formatSchema });
export const gapsPathQuerySchema = z.object({ since: sinceSchema, format: formatSchema });

const pageSchema = z.object({ title: z.string(), file: z.string(), origin: z.string(), score: z.number() });
const dayCountsSchema = z.object({
  day: z.string().describe('YYYY-MM-DD (UTC).'),
  questions: z.number().int(),
  covered: z.number().int(),
  not_covered: z.number().int(),
  rated_up: z.number().int(),
  rated_down: z.number().int(),
});

export const gapsReportSchema = z.object({
  namespace: z.string(),
  since: z.string().describe('ISO 8601: the report covers questions from here...'),
  until: z.string().describe('...to here.'),
  log: z.enum(['off', 'counts', 'full']).describe('What the question log keeps: with `counts` the report has counts and no questions.'),
  totals: dayCountsSchema.omit({ day: true }),
  groups: z
    .array(
      z.object({
        label: z.string().describe("The topic: its questions' most used words."),
        count: z.number().int().describe('Questions in the group, each as often as it was asked.'),
        questions: z.array(z.string()).describe('Its distinct questions, most asked first (up to 20).'),
        pages: z.array(pageSchema).describe('The closest pages in the namespace now.'),
        comments: z.array(z.string()).describe('Comments given with thumbs down.'),
      }),
    )
    .describe('Questions the docs did not cover and answers rated down, grouped by topic, largest group first.'),
  top_questions: z.array(z.object({ question: z.string(), count: z.number().int(), not_covered: z.number().int() })),
  counts: z.array(dayCountsSchema).describe('Per day, oldest first.'),
  rated_up: z
    .array(z.object({ question: z.string(), pages: z.array(z.string()) }))
    .describe('Questions rated up and the pages their answers cited.'),
  grouping: z
    .enum(['embedding', 'lexical'])
    .describe('`lexical` when no embedding model could embed the questions (grouped by shared words).'),
});
