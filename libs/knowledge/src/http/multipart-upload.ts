// A document upload as multipart/form-data: the fields (`name?`, `scope?`, `tagIds?` comma-separated), then exactly
// one file part named `file`. The parser's own failures are the client's (400 `invalid_multipart`).
import type { FastifyRequest } from 'fastify';
import { PlatformError, ValidationError } from '#kernel';
import { parseOrThrow } from '#http';
import { UploadFields } from '../knowledge.schemas.js';

/**
 * The multipart parser's own failures (no boundary, a part cut short, the body ending early) are the client's: 400
 * `invalid_multipart`. Our errors and @fastify/multipart's limits (which carry a 4xx status) pass as they are.
 */
const malformedMultipart = (error: unknown): unknown => {
  if (error instanceof PlatformError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  const reason = error instanceof Error ? error.message : 'unreadable';
  return new ValidationError('invalid_multipart', `the multipart/form-data body is malformed: ${reason}`);
};

/** Reads a multipart upload: the fields, then exactly one file part. */
export async function readUpload(request: FastifyRequest) {
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; filename: string; mimetype: string } | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file)
          throw new ValidationError('invalid_upload', 'send one file, in the part named `file`', 'file');
        file = { bytes: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype };
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (error) {
    throw malformedMultipart(error);
  }
  if (!file) throw new ValidationError('missing_file', 'the upload has no `file` part', 'file');
  if (file.bytes.length === 0) throw new ValidationError('empty_file', 'the uploaded file is empty', 'file');
  const parsed = parseOrThrow(UploadFields, fields);
  const name = parsed.name ?? (file.filename.trim() || 'upload');
  return {
    name,
    scope: parsed.scope,
    tagIds: parsed.tagIds,
    bytes: file.bytes,
    declaredType: file.mimetype || null,
  };
}
