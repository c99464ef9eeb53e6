// Reads a multipart/form-data request part by part within limits: text fields whole, files one at a time.
import type { FastifyMultipartBaseOptions, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { KnowledgeError, isKnowledgeError } from '../../errors.js';

export interface MultipartLimits {
  /** Bytes per file; a larger file is reported as too large and its bytes are dropped. */
  readonly maxFileBytes: number;
  /** Bytes per text field. */
  readonly maxFieldBytes: number;
  readonly maxFiles: number;
  readonly maxFields: number;
  /** Bytes of the whole request body. */
  readonly maxBodyBytes: number;
}

export interface FormField {
  readonly name: string;
  /** The text, or the parsed value when the part was sent as application/json. */
  readonly value: unknown;
}

export interface FormFile {
  readonly fieldName: string;
  readonly fileName: string;
  readonly contentType: string;
  /** Null when the file was over `maxFileBytes`: only the fact is kept, not the bytes. */
  readonly bytes: Buffer | null;
}

export interface MultipartForm {
  readonly fields: readonly FormField[];
  /** In upload order. */
  readonly files: readonly FormFile[];
}

/**
 * Options for registering @fastify/multipart: an oversized file is truncated and flagged, not a failed request; a
 * file name keeps its folders (the parser would cut `tutorial/index.md` to `index.md`), and is checked by the route.
 */
export function multipartOptions(limits: MultipartLimits): FastifyMultipartBaseOptions {
  return {
    throwFileSizeLimit: false,
    preservePath: true,
    limits: {
      fileSize: limits.maxFileBytes,
      fieldSize: limits.maxFieldBytes,
      files: limits.maxFiles,
      fields: limits.maxFields,
      parts: limits.maxFiles + limits.maxFields,
    },
  };
}

function tooLarge(limits: MultipartLimits): KnowledgeError {
  return new KnowledgeError('payload_too_large', `the multipart body is larger than the ${limits.maxBodyBytes}-byte limit`);
}

/** Parser failures (limits, malformed bodies) as catalogue errors; busboy's own errors carry no HTTP status. */
function toRequestError(error: unknown, limits: MultipartLimits): KnowledgeError {
  if (isKnowledgeError(error)) return error;
  const { code, statusCode, message } = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  switch (code) {
    case 'FST_FILES_LIMIT':
      return new KnowledgeError('payload_too_large', `the form holds more than ${limits.maxFiles} files`);
    case 'FST_FIELDS_LIMIT':
      return new KnowledgeError('payload_too_large', `the form holds more than ${limits.maxFields} fields`);
    case 'FST_PARTS_LIMIT':
      return new KnowledgeError('payload_too_large', `the form holds more than ${limits.maxFiles + limits.maxFields} parts`);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new KnowledgeError('invalid_request', 'a form field sent as application/json holds invalid JSON', { cause: error });
  }
  const reason = typeof message === 'string' ? message : 'unreadable';
  return new KnowledgeError('invalid_request', statusCode === 400 ? `form: ${reason}` : `the multipart body is malformed (${reason})`, {
    cause: error,
  });
}

async function readFilePart(part: MultipartFile, count: (bytes: number) => void): Promise<FormFile> {
  const chunks: Buffer[] = [];
  for await (const chunk of part.file) {
    count(chunk.length);
    chunks.push(chunk as Buffer);
  }
  // `truncated` is only known once the stream has ended: busboy stops at the limit and discards the rest.
  return {
    fieldName: part.fieldname,
    fileName: part.filename ?? '',
    contentType: part.mimetype,
    bytes: part.file.truncated ? null : Buffer.concat(chunks),
  };
}

/**
 * Consumes the whole form. Files are buffered (each at most `maxFileBytes`) because the caller needs them all
 * before it can act; the body as a whole, declared or counted, may not exceed `maxBodyBytes`.
 * A file input left empty by a browser (no file name, no bytes) is not a file; a file without a name is named
 * after its field.
 */
/** How long a multipart body may go without any byte arriving or any part coming out of the parser. */
const multipartIdleTimeoutMs = 2_500;

export async function readMultipartForm(request: FastifyRequest, limits: MultipartLimits): Promise<MultipartForm> {
  const declaredLength = Number(request.headers['content-length']);
  if (declaredLength > limits.maxBodyBytes) throw tooLarge(limits);
  let receivedBytes = 0;
  const count = (bytes: number) => {
    receivedBytes += bytes;
    if (receivedBytes > limits.maxBodyBytes) throw tooLarge(limits);
  };

  const fields: FormField[] = [];
  const files: FormFile[] = [];
  // The multipart parser can stall for good on some malformed parts (a skipped part over ~16 KB): when nothing
  // arrives and no part comes out for a while, the form is given up instead of holding the request forever.
  let lastActivity = Date.now();
  const noteActivity = () => {
    lastActivity = Date.now();
  };
  request.raw.on('data', noteActivity);
  let watchdog: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    watchdog = setInterval(() => {
      if (Date.now() - lastActivity < multipartIdleTimeoutMs) return;
      // Drain what is left, so the answer can still be sent on this connection.
      request.raw.unpipe();
      request.raw.resume();
      reject(
        new KnowledgeError(
          'invalid_request',
          `the multipart body could not be read: nothing came through for ${multipartIdleTimeoutMs} ms (a malformed part?)`,
        ),
      );
    }, 250);
  });
  const readParts = async () => {
    for await (const part of request.parts()) {
      noteActivity();
      if (part.type === 'file') {
        const file = await readFilePart(part, count);
        if (file.fileName === '' && file.bytes?.length === 0) continue;
        files.push(file.fileName === '' ? { ...file, fileName: file.fieldName } : file);
        continue;
      }
      if (part.valueTruncated) {
        throw new KnowledgeError('payload_too_large', `${part.fieldname}: the field is longer than the ${limits.maxFieldBytes}-byte limit`);
      }
      count(typeof part.value === 'string' ? Buffer.byteLength(part.value) : 0);
      fields.push({ name: part.fieldname, value: part.value });
    }
  };
  try {
    await Promise.race([readParts(), stalled]);
  } catch (error) {
    throw toRequestError(error, limits);
  } finally {
    clearInterval(watchdog);
    request.raw.off('data', noteActivity);
  }
  return { fields, files };
}
