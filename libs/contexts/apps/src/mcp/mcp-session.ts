// What an MCP server may send the platform's client while a connection is open, besides answers: log lines
// (`notifications/message`), list-changed notifications, sampling requests (`sampling/createMessage`) and questions
// for the person (`elicitation/create`, form mode). Each goes to the host of the call under way (McpSessionHost:
// the turn's, through the Apps' tool provider); without one, sampling is refused with an MCP error and a question is
// declined. A call's own timeout stands still while the person is asked (CallClock).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitationAnswer, SamplingAnswer, SamplingAsk } from '#conversations';
import { PlatformError } from '#kernel';

export type McpList = 'tools' | 'resources' | 'prompts';

export interface McpElicitationRequest {
  readonly message: string;
  readonly requestedSchema: Record<string, unknown>;
}

/** Who serves a connection's server-initiated messages; every member is optional. */
export interface McpSessionHost {
  log?(level: string, text: string): void;
  /** Throws to refuse: the error's message goes to the server. */
  sample?(request: SamplingAsk, signal: AbortSignal): Promise<SamplingAnswer>;
  elicit?(request: McpElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** A list the server offers changed while a call was under way. */
  listChanged?(list: McpList): void;
}

/** A call's timeout that can stand still (while the person answers a question); expiry aborts `signal`. */
export class CallClock {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private paused = 0;
  expired = false;

  constructor(private remaining: number) {
    this.run();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.paused++ > 0 || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remaining -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (--this.paused === 0 && !this.expired) this.run();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(
      () => {
        this.expired = true;
        this.controller.abort(new Error('the call timed out'));
      },
      Math.max(0, this.remaining),
    );
  }
}

/** What the handlers read of the connection: the call under way (its host and clock), if any. */
export interface McpSessionState {
  host?: McpSessionHost | undefined;
  clock?: CallClock | undefined;
  calling: boolean;
}

/** The capabilities the platform's client declares: it serves sampling and asks form questions. */
/** `applyDefaults`: a form answered without a field gets the default its schema gives (SEP-1034). */
export const CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: { applyDefaults: true } } };

const MAX_SAMPLING_MESSAGES = 50;
const MAX_SAMPLING_TEXT = 100_000;

/** One content block (or a list of them) as text for the model. */
function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block: { type?: unknown; text?: unknown }) =>
      block?.type === 'text' && typeof block.text === 'string'
        ? block.text
        : `[${typeof block?.type === 'string' ? block.type : 'unknown'} content left out]`,
    )
    .join('\n')
    .slice(0, MAX_SAMPLING_TEXT);
}

/** An error as the server may read it: the platform's own errors say what went wrong, others say nothing more. */
const refusal = (error: unknown): string =>
  error instanceof PlatformError || (error instanceof Error && error.name === 'SamplingRefused')
    ? error.message
    : 'the sampling request could not be served';

/** Installs the handlers on a client not yet connected. */
export async function installSessionHandlers(client: Client, state: McpSessionState): Promise<void> {
  const types = await import('@modelcontextprotocol/sdk/types.js');
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, ({ params }) => {
    const text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data ?? null);
    state.host?.log?.(params.level, params.logger ? `${params.logger}: ${text}` : text);
  });
  const lists: [McpList, typeof types.ToolListChangedNotificationSchema][] = [
    ['tools', types.ToolListChangedNotificationSchema],
    ['resources', types.ResourceListChangedNotificationSchema as never],
    ['prompts', types.PromptListChangedNotificationSchema as never],
  ];
  for (const [list, schema] of lists)
    client.setNotificationHandler(schema, () => {
      // Only a call's: the list a server changes as it starts (registering what the client's capabilities allow)
      // is the one registration and refresh already read.
      if (state.calling) state.host?.listChanged?.(list);
    });
  client.setRequestHandler(types.CreateMessageRequestSchema, async ({ params }, extra) => {
    const sample = state.host?.sample;
    if (!sample)
      throw new types.McpError(
        types.ErrorCode.InvalidRequest,
        'this client serves no sampling requests here',
      );
    try {
      const answer = await sample(
        {
          ...(params.systemPrompt ? { system: params.systemPrompt.slice(0, MAX_SAMPLING_TEXT) } : {}),
          messages: params.messages.slice(-MAX_SAMPLING_MESSAGES).map((message) => ({
            role: message.role,
            text: contentText(message.content),
          })),
          maxTokens: params.maxTokens,
          ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
          ...(params.stopSequences ? { stopSequences: params.stopSequences } : {}),
        },
        extra.signal,
      );
      return {
        role: 'assistant' as const,
        content: { type: 'text' as const, text: answer.text },
        model: answer.model,
        stopReason: answer.stopReason,
      };
    } catch (error) {
      throw new types.McpError(types.ErrorCode.InvalidRequest, refusal(error));
    }
  });
  client.setRequestHandler(types.ElicitRequestSchema, async ({ params }, extra) => {
    const elicit = state.host?.elicit;
    if (!elicit || params.mode === 'url' || !('requestedSchema' in params)) return { action: 'decline' };
    const clock = state.clock;
    clock?.pause();
    try {
      const answer = await elicit(
        { message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> },
        extra.signal,
      );
      return answer.action === 'accept'
        ? { action: 'accept', content: { ...(answer.content ?? {}) } as Record<string, string> }
        : { action: answer.action };
    } finally {
      clock?.resume();
    }
  });
}
