// POST /hooks/sources/:namespace/:id: a push to the docs' repository or a docs deploy refreshes the source. No token:
// the sender proves it knows the source's webhook secret, as GitHub does (X-Hub-Signature-256, an HMAC of the body)
// or as other senders do (the secret itself in X-Gitlab-Token or X-Webhook-Token). The answer comes at once (202);
// the refresh runs in the background.
import { createHmac } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { matchesDigest, secretDigest } from '../../auth/secret-digest.js';
import { KnowledgeError } from '../../errors.js';
import type { SourcesService } from '../../sources/index.js';
import { sanitizeNamespace } from '../../store/namespace-name.js';
import { jsonSuccess } from '../plumbing/index.js';
import { namespaceNameSchema } from '../shared/index.js';

export interface WebhookRouteOptions {
  readonly sources: SourcesService;
}

/** Equal in constant time, whatever the lengths (compared as digests). */
function sameSecret(given: string, secret: string): boolean {
  return matchesDigest(given, secretDigest(secret));
}

/** Whether the request proves it knows `secret`. */
export function isSignedWith(secret: string, body: Buffer, headers: Record<string, string | string[] | undefined>): boolean {
  const signature = headers['x-hub-signature-256'];
  if (typeof signature === 'string') {
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return sameSecret(signature.trim().toLowerCase(), expected);
  }
  const token = headers['x-gitlab-token'] ?? headers['x-webhook-token'];
  return typeof token === 'string' && sameSecret(token, secret);
}

/** The branch a push event names (`refs/heads/main` → main), or undefined for other events and senders. */
function pushedBranch(body: Buffer, contentType: string | undefined): string | undefined {
  try {
    const text = body.toString('utf8');
    // GitHub sends either JSON or a form with the JSON in `payload`.
    const json = contentType?.startsWith('application/x-www-form-urlencoded') ? (new URLSearchParams(text).get('payload') ?? '') : text;
    const ref = (JSON.parse(json) as { ref?: unknown } | null)?.ref;
    return typeof ref === 'string' && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
  } catch {
    return undefined;
  }
}

const acceptedSchema = z.object({
  refreshing: z.boolean().describe('False when the notification needs no refresh (a ping, a push to another branch).'),
  reason: z.string().optional(),
});

export const webhookRoute: FastifyPluginAsyncZod<WebhookRouteOptions> = async (app, { sources }) => {
  // The signature covers the body's bytes as sent: they are kept as they are, whatever their type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post(
    '/hooks/sources/:namespace/:id',
    {
      schema: {
        tags: ['Sources'],
        summary: 'Refresh a source from a webhook (a push or a deploy)',
        description:
          "Signed with the source's webhook secret: GitHub's X-Hub-Signature-256 (HMAC-SHA256 of the body), or the secret itself in " +
          'X-Gitlab-Token or X-Webhook-Token. Answers 202 at once and refreshes in the background; a GitHub ping, or a push to a branch ' +
          'other than a git source follows, is acknowledged without a refresh.',
        params: z.object({ namespace: namespaceNameSchema, id: z.string().max(100) }),
        documentation: {
          success: jsonSuccess('The notification is accepted.', acceptedSchema, 202),
          errors: ['unauthorized', 'not_found'],
        },
      },
      config: { cost: 'request' },
    },
    async (request, reply) => {
      const namespace = sanitizeNamespace(request.params.namespace);
      const source = await sources.get(namespace, request.params.id);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (source.webhookSecret === undefined || !isSignedWith(source.webhookSecret, body, request.headers)) {
        throw new KnowledgeError(
          'unauthorized',
          source.webhookSecret === undefined
            ? 'this source has no webhook secret: set one (webhook_secret) and sign notifications with it'
            : "the notification is not signed with the source's webhook secret (X-Hub-Signature-256, X-Gitlab-Token or X-Webhook-Token)",
        );
      }
      if (request.headers['x-github-event'] === 'ping') return reply.code(202).send({ refreshing: false, reason: 'ping' });
      const branch = source.kind === 'git' ? pushedBranch(body, request.headers['content-type']) : undefined;
      if (branch !== undefined && branch !== source.git?.branch) {
        return reply.code(202).send({ refreshing: false, reason: `a push to ${branch}; the source follows ${source.git?.branch}` });
      }
      sources.refreshInBackground(namespace, source.id, 'webhook');
      return reply.code(202).send({ refreshing: true });
    },
  );
};
