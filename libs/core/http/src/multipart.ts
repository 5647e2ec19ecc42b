// A file upload as multipart/form-data: its text fields, then exactly one file part named `file`. The parser's own
// failures are the client's (400 `invalid_multipart`); its limits (a 4xx status of their own) pass as they are.
import type { FastifyRequest } from 'fastify';
import { PlatformError, ValidationError } from '#kernel';

export interface MultipartUpload {
  readonly fields: Readonly<Record<string, string>>;
  readonly file: { readonly bytes: Buffer; readonly filename: string; readonly mimetype: string };
}

const malformedMultipart = (error: unknown): unknown => {
  if (error instanceof PlatformError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  const reason = error instanceof Error ? error.message : 'unreadable';
  return new ValidationError('invalid_multipart', `the multipart/form-data body is malformed: ${reason}`);
};

/** Reads a multipart upload: the fields, then exactly one non-empty file part named `file`. */
export async function readMultipartFile(request: FastifyRequest): Promise<MultipartUpload> {
  const fields: Record<string, string> = {};
  let file: MultipartUpload['file'] | null = null;
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
  return { fields, file };
}
