// A document upload as multipart/form-data: the fields (`name?`, `scope?`, `tagIds?` comma-separated), then exactly
// one file part named `file` (read by #http's readMultipartFile).
import type { FastifyRequest } from 'fastify';
import { parseOrThrow, readMultipartFile } from '#http';
import { UploadFields } from '../knowledge.schemas.js';

/** Reads a multipart upload: the fields, then exactly one file part. */
export async function readUpload(request: FastifyRequest) {
  const { fields, file } = await readMultipartFile(request);
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
