// The fetch the MCP client's transports use: undici's, through the guarded connection pool (outbound-address.ts),
// the URL checked before each request, redirects not followed, and each answer's body limited in bytes. The SDK holds
// a whole answer in memory before the result cap cuts what a model reads, so a server answering without end is
// stopped here; the connection is then told (onOverflow) so that the call waiting for that answer ends at once.
import type { Agent } from 'undici';
import { lazyModule } from '#kernel';
import { checkOutboundUrl } from './outbound-address.js';

// Loaded at the first MCP request: an api that never calls an MCP server never pays undici's memory.
const undici = lazyModule<typeof import('undici')>('undici');

export interface GuardedFetch {
  readonly fetch: typeof fetch;
  /** Bytes one answer may have. */
  readonly maxBytes: number;
  /** Whether an answer passed maxBytes. */
  overflowed(): boolean;
  onOverflow(listener: () => void): void;
}

/** At least 1 MiB, and eight times what a model reads of a result (an answer carries more than its text). */
export const responseMaxBytes = (resultMaxBytes: number): number => Math.max(1024 * 1024, resultMaxBytes * 8);

export function guardedFetch(
  agent: Agent,
  limits: { readonly allowLinkLocal: boolean; readonly resultMaxBytes: number },
): GuardedFetch {
  const maxBytes = responseMaxBytes(limits.resultMaxBytes);
  let overflowed = false;
  const listeners: (() => void)[] = [];
  const capped = (response: Response): Response => {
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          overflowed = true;
          controller.error(new Error(`the server's answer is larger than ${maxBytes} bytes`));
          for (const listener of listeners) listener();
        },
      }),
    );
    const { status, statusText, headers } = response;
    return new Response(counted, { status, statusText, headers });
  };
  const guarded = async (input: string | URL, init?: RequestInit) => {
    checkOutboundUrl(new URL(String(input)), limits.allowLinkLocal);
    const response = await undici().fetch(String(input), {
      ...(init as object),
      dispatcher: agent,
      redirect: 'manual',
    });
    return capped(response as unknown as Response);
  };
  return {
    fetch: guarded as unknown as typeof fetch,
    maxBytes,
    overflowed: () => overflowed,
    onOverflow: (listener) => void listeners.push(listener),
  };
}
