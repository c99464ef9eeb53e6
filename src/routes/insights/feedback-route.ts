// POST /tools/feedback and /api/feedback: thumbs up or down on an answer, named by its run id. A read token of the
// run's namespace may give it; the run id alone finds the namespace (from the question log).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { QuestionRecorder } from '../../insights/index.js';
import { authorizeNamespace, jsonSuccess } from '../plumbing/index.js';
import { feedbackBodySchema, feedbackResponseSchema } from './insights-schemas.js';

export const feedbackRoute: FastifyPluginAsyncZod<{ readonly questions: QuestionRecorder }> = async (app, options) => {
  app.post(
    '/feedback',
    {
      schema: {
        tags: ['Insights'],
        summary: 'Rate an answer (thumbs up or down, with a comment)',
        description:
          'Kept in the question log of the namespace the run answered from, for the gaps report. 404 when no answer of that run id is kept ' +
          '(unknown, older than KNOWLEDGE_AGENT_QUESTION_RETENTION, or the log is off).',
        body: feedbackBodySchema,
        documentation: { success: jsonSuccess('The feedback is kept.', feedbackResponseSchema), errors: ['not_found', 'forbidden'] },
      },
      config: { access: 'read', cost: 'request' },
    },
    async (request) => {
      const { run_id: runId, rating, comment } = request.body;
      const namespace = await options.questions.feedback({ runId, rating, comment }, (found) => authorizeNamespace(request, found));
      return { run_id: runId, namespace, rating };
    },
  );
};
