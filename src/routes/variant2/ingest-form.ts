// Reads the Variant 2 ingest form (multipart/form-data): its `namespace` and `sources` fields as the JSON body would
// give them, and each uploaded file as a source of its own.
import type { FastifyRequest } from 'fastify';
import { KnowledgeError, isKnowledgeError } from '../../errors.js';
import { parseBaseUrl, parseUploadPath, publicPageUrl, type UploadPath } from '../../ingest/upload-path.js';
import { parseBody, readMultipartForm, type FormFile, type MultipartLimits } from '../plumbing/index.js';
import { variant2IngestBodySchema, type Variant2IngestBody } from './ingest-schemas.js';
import type { SourceEntry } from '../../ingest/requested-sources.js';

/**
 * An uploaded file, named by the path it came with (its folders are kept: they tell `a/index.md` from `b/index.md`),
 * or by its public page's URL when the form gives the site's `base_url`.
 */
function toUploadSource(file: FormFile, limits: MultipartLimits, baseUrl: string | undefined): SourceEntry {
  let uploadPath: UploadPath;
  try {
    uploadPath = parseUploadPath(file.fileName);
  } catch (error) {
    if (!isKnowledgeError(error)) throw error;
    return { kind: 'invalid', label: file.fileName, error };
  }
  const { path, folder } = uploadPath;
  if (file.bytes === null) {
    return {
      kind: 'invalid',
      label: path,
      error: new KnowledgeError('source_too_large', `${path} is over the ${limits.maxFileBytes}-byte limit for a file`),
    };
  }
  return {
    kind: 'upload',
    fileName: path,
    ...(folder === undefined ? {} : { folder }),
    ...(baseUrl === undefined ? {} : { publicUrl: publicPageUrl(baseUrl, path) }),
    contentType: file.contentType,
    bytes: file.bytes,
  };
}

/** The form's `namespace` and `sources` fields as a JSON body, and its files as upload sources (see `base_url`). */
export async function readIngestForm(
  request: FastifyRequest,
  limits: MultipartLimits,
): Promise<{ body: Variant2IngestBody; uploads: SourceEntry[] }> {
  const form = await readMultipartForm(request, limits);
  const single = (name: string): unknown => {
    const matches = form.fields.filter((field) => field.name === name);
    if (matches.length > 1) throw new KnowledgeError('invalid_request', `${name}: the form gives this field more than once`);
    return matches[0]?.value;
  };
  const namespace = single('namespace');
  let sources = single('sources') ?? [];
  // A browser sends a textarea left blank as an empty field: no JSON sources, not a malformed list.
  if (typeof sources === 'string' && sources.trim() === '') sources = [];
  if (typeof sources === 'string') {
    try {
      sources = JSON.parse(sources);
    } catch {
      throw new KnowledgeError('invalid_request', 'sources: the field is not valid JSON (send a JSON array of sources)');
    }
  }
  const body = parseBody(variant2IngestBodySchema, namespace === undefined ? { sources } : { namespace, sources });
  const baseUrlField = single('base_url');
  const baseUrl = typeof baseUrlField === 'string' && baseUrlField.trim() !== '' ? parseBaseUrl(baseUrlField.trim()) : undefined;
  return { body, uploads: form.files.map((file) => toUploadSource(file, limits, baseUrl)) };
}
