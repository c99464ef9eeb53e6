// Request bodies are read as they are sent: a compressed one (Content-Encoding: gzip, br...) is refused with 415 up
// front, instead of reaching the JSON parser as bytes that "are not valid JSON" or a decompressor that could inflate it
// past the body limit.
import type { FastifyInstance } from 'fastify';
import { KnowledgeError } from '../../errors.js';

export function installEncodedBodyRefusal(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding === undefined || encoding === '' || encoding === 'identity') return;
    throw new KnowledgeError(
      'unsupported_media_type',
      `request bodies with Content-Encoding ${JSON.stringify(encoding)} are not accepted: send the body uncompressed, without a Content-Encoding header`,
    );
  });
}
