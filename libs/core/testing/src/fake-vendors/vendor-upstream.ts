// What every fake vendor upstream offers the provider matrix (test/provider-matrix.e2e.spec.ts): a server on
// 127.0.0.1 that speaks one vendor's wire format exactly (its paths, headers, request and answer bodies, stream
// framing, error envelopes), scripted in vendor-neutral terms so the same scenario runs against every provider type,
// and that reads each request back in the same neutral terms so the matrix can check what reached the vendor.

/** Why the next answer fails, as the vendor says it (its status, error type and message). */
export type VendorFailure = 'rate_limit' | 'overloaded' | 'context_length' | 'bad_request' | 'auth';

export interface VendorScript {
  /** The answer's text; default `Echo: <the last user message's text>`. */
  readonly text?: string;
  /** Answer with these tool calls (several: parallel calls) instead of text; the stop reason is the vendor's "tool use". */
  readonly toolCalls?: readonly {
    readonly name: string;
    readonly arguments: Readonly<Record<string, unknown>>;
  }[];
  /** `length`: the answer stopped at the output limit (the vendor's own word for it). Default: a natural stop. */
  readonly stop?: 'stop' | 'length';
  /** Token counts as the vendor reports them; `input` excludes nothing (cache reads and writes are part of it). */
  readonly usage?: {
    readonly input: number;
    readonly output: number;
    readonly cacheRead?: number;
    readonly cacheWrite?: number;
  };
  /** Fail instead of answering; `retryAfterSeconds` with `rate_limit` sends the vendor's Retry-After. */
  readonly failure?: VendorFailure;
  readonly retryAfterSeconds?: number;
}

/** A request as the vendor received it, in neutral terms. */
export interface VendorRequestView {
  /** The model id the request named (in its path or body). */
  readonly model: string;
  readonly stream: boolean;
  /** The system prompt's text (all system parts joined by a newline); undefined when none was sent. */
  readonly system?: string;
  /** Every user message's text, in order (text parts joined by a newline). */
  readonly userTexts: readonly string[];
  /** Images sent in user messages: their media type and the base64 data's length. */
  readonly images: readonly { readonly mediaType: string; readonly bytes: number }[];
  /** The tools offered, by name. */
  readonly tools: readonly string[];
  /** Tool results sent back: the call id they answer and their text. */
  readonly toolResults: readonly { readonly callId: string; readonly text: string }[];
  /** Stop sequences, max output tokens, temperature as sent (undefined when not sent). */
  readonly stopSequences?: readonly string[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Parts marked for the vendor's prompt cache (Anthropic's `cache_control`, Bedrock's `cachePoint`). */
  readonly cacheMarks: number;
  /** The request's headers (lower-cased), to check authentication and signatures. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface FakeVendorUpstream {
  /** The `baseUrl` a models file gives this provider type (for Bedrock: the endpoint, with `awsRegion` set apart). */
  readonly baseUrl: string;
  /** Every request received, in order, as the vendor saw it. */
  readonly requests: readonly VendorRequestView[];
  /** Scripts the answers to the following requests (until scripted again); `{}` answers the default echo. */
  script(script: VendorScript): void;
  close(): Promise<void>;
}

/** Starts a fake vendor; `apiKey` is the key (or for Bedrock the secret access key) it requires. */
export type StartFakeVendor = (options: { readonly apiKey: string }) => Promise<FakeVendorUpstream>;
