// The shapes the bridge API takes and answers.

/** Bound once, at construction (1.2.0): an Agent's bridge, or a standalone (agent-less) one. */
export type BridgeScope =
  { readonly type: 'agent'; readonly agentId: string } | { readonly type: 'standalone' };

export interface BridgeOptions {
  /** The App's token, or the `svc_session_token` the proxy handed the App for the signed-in person. */
  readonly token: string;
  /** The platform's URL (the proxy's `svc_server_url`). */
  readonly serverUrl: string;
  /** The Agent this bridge works for; omitted: a standalone bridge. */
  readonly agentId?: string;
  /** Defaults to 60 minutes. */
  readonly headersTimeoutMs?: number;
}

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface Usage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

export interface GenerateTextRequest {
  readonly messages: readonly ChatMessage[];
  readonly model?: string;
  readonly conversationId?: string;
  readonly maxTokens?: number;
}

export interface GenerateTextResult {
  readonly text: string;
  readonly model: string;
  readonly finishReason: string;
  readonly usage: Usage;
}

export interface GenerateObjectRequest extends GenerateTextRequest {
  readonly schema: Record<string, unknown>;
}

export interface GenerateObjectResult {
  readonly object: unknown;
  readonly model: string;
  readonly usage: Usage;
}

export interface GenerateImageRequest {
  readonly prompt: string;
  readonly aspectRatio?: '1:1' | '4:3' | '3:4' | '16:9' | '9:16';
  readonly resolution?: '1K' | '2K' | '4K';
  readonly model?: string;
  readonly imageConfig?: Record<string, unknown>;
  /** An inpainting mask, as a data URL. */
  readonly mask?: string;
}

export interface GenerateImageResult {
  readonly base64: string;
  readonly mimeType: string;
  readonly model: string;
}

export interface TranscribeRequest {
  readonly model: string;
  readonly audioBase64: string;
  readonly mimeType: string;
  readonly prompt?: string;
}

export interface Speaker {
  readonly speaker: string;
  readonly voiceName: string;
}

export type GenerateSpeechRequest = {
  readonly text: string;
  readonly model?: string;
} & (
  | { readonly voiceName: string; readonly speakers?: never }
  | { readonly speakers: readonly Speaker[]; readonly voiceName?: never }
);

export interface ModelInfo {
  readonly key: string;
  readonly kind: string;
  readonly displayName: string;
  readonly [field: string]: unknown;
}

export interface AvailableModels {
  readonly defaultModel: string;
  readonly availableModels: readonly string[];
  readonly models: readonly ModelInfo[];
}

export type ConversationField =
  'id' | 'agentId' | 'title' | 'archived' | 'messageCount' | 'lastMessageAt' | 'createdAt';

export interface ConversationFilter {
  readonly where?: {
    readonly archived?: boolean;
    readonly title?: { readonly contains: string };
    readonly createdAt?: { readonly gte?: string; readonly lte?: string };
  };
  readonly select?: Partial<Record<ConversationField, boolean>>;
  readonly orderBy?: Partial<
    Record<'createdAt' | 'lastMessageAt' | 'messageCount' | 'title', 'asc' | 'desc'>
  >;
  readonly skip?: number;
  readonly take?: number;
  readonly cursor?: { readonly id: string };
}

/** A conversation without message bodies (only the fields selected). */
export interface ConversationSummary {
  readonly id?: string;
  readonly agentId?: string;
  readonly title?: string | null;
  readonly archived?: boolean;
  readonly messageCount?: number;
  readonly lastMessageAt?: string | null;
  readonly createdAt?: string;
}

export interface BridgeAgent {
  readonly id: string;
  readonly name: string;
  readonly model: string;
}

export interface Tag {
  readonly id: string;
  readonly name: string;
  readonly color: string | null;
  readonly [field: string]: unknown;
}
