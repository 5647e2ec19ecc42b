// Reading an App's `/meta`: fetched with a bounded time and size, parsed and validated into AppMeta. Whatever goes
// wrong (unreachable, slow, too large, not JSON, not the shape) is one short message that becomes the App's
// `lastError`; nothing the App sends can fail the request that asked for it. A tool declares its input schema (an
// object schema), the path it is POSTed to (`/tools/<name>` unless it says) and the hints that set its approval; a
// document, the path its text is read from.
import { z } from 'zod';
import type { AppMeta } from './app.events.js';

export const META_MAX_BYTES = 64 * 1024;
export const META_TIMEOUT_MS = 5_000;

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const metaSchema = z.object({
  id: z.string().regex(SLUG, 'id: 1-64 letters, digits, dot, dash or underscore'),
  name: z.string().trim().min(1).max(200),
  standalone: z.boolean().optional().default(false),
  views: z
    .array(
      z.object({
        id: z.string().regex(SLUG),
        title: z.string().max(200),
        path: z.string().startsWith('/').max(500),
      }),
    )
    .max(50)
    .optional()
    .default([]),
  tools: z
    .array(
      z
        .object({
          name: z.string().regex(SLUG),
          description: z.string().max(2000),
          inputSchema: z
            .record(z.string(), z.unknown())
            .refine((schema) => schema.type === undefined || schema.type === 'object', {
              message: 'an object schema (`type: "object"`)',
            })
            .optional()
            .default({ type: 'object' }),
          path: z.string().startsWith('/').max(500).optional(),
          annotations: z
            .object({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional() })
            .optional(),
        })
        .transform(({ path, annotations, ...tool }) => ({
          ...tool,
          path: path ?? `/tools/${tool.name}`,
          ...(annotations ? { annotations } : {}),
        })),
    )
    .max(100)
    .optional()
    .default([]),
  documents: z
    .array(
      z.object({
        uri: z.string().min(1).max(2000),
        name: z.string().trim().min(1).max(255),
        path: z.string().startsWith('/').max(500),
      }),
    )
    .max(100)
    .refine((documents) => new Set(documents.map((document) => document.uri)).size === documents.length, {
      message: 'each document needs its own uri',
    })
    .optional()
    .default([]),
});

/** Validates a parsed `/meta` body; throws an Error whose message names the first problem. */
export function parseAppMeta(body: unknown): AppMeta {
  const parsed = metaSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`/meta is not valid: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The meta of the App at `baseUrl`, or the reason it could not be read. */
export async function fetchAppMeta(
  baseUrl: string,
  options: { readonly timeoutMs?: number; readonly maxBytes?: number } = {},
): Promise<{ readonly meta: AppMeta } | { readonly error: string }> {
  const maxBytes = options.maxBytes ?? META_MAX_BYTES;
  const url = `${baseUrl.replace(/\/+$/, '')}/meta`;
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? META_TIMEOUT_MS),
      redirect: 'error',
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { error: `/meta answered ${response.status}` };
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await response.body?.cancel();
      return { error: `/meta is larger than ${maxBytes} bytes` };
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > maxBytes) return { error: `/meta is larger than ${maxBytes} bytes` };
      chunks.push(chunk);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return { error: '/meta is not JSON' };
    }
    return { meta: parseAppMeta(body) };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { error: '/meta did not answer in time' };
    const message = (error as Error).message;
    return {
      error: message.startsWith('/meta') ? message : `/meta could not be read: ${message}`.slice(0, 300),
    };
  }
}
