// The app's one way to the core API: same-origin fetch with the session cookie (the server checks Origin on unsafe
// requests), JSON in and out, errors as the envelope's message; and a reader of the conversation turn's SSE stream.
export const CORE = '/api/v1/core';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A failed response as an ApiError: the envelope's code, else its status (also for routes that answer a zip). */
export async function failure(response: Response): Promise<ApiError> {
  let code = 'error';
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON: the status says enough
  }
  return new ApiError(response.status, code, message);
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders?: HeadersInit,
): Promise<T> {
  const headers = new Headers(extraHeaders);
  if (body !== undefined && !(body instanceof FormData)) headers.set('content-type', 'application/json');
  const response = await fetch(path.startsWith('/') ? path : `${CORE}/${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

export interface SseMessage {
  readonly event: string;
  readonly data: unknown;
}

/** POSTs a body and calls `onEvent` for every named Server-Sent Event of the answer until it ends or is aborted. */
export async function streamPost(
  path: string,
  body: unknown,
  signal: AbortSignal,
  onEvent: (message: SseMessage) => void,
  extraHeaders?: HeadersInit,
): Promise<void> {
  const headers = new Headers(extraHeaders);
  headers.set('content-type', 'application/json');
  headers.set('accept', 'text/event-stream');
  const response = await fetch(path, {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length === 0) continue;
      try {
        onEvent({ event, data: JSON.parse(data.join('\n')) });
      } catch {
        onEvent({ event, data: data.join('\n') });
      }
    }
  }
}
