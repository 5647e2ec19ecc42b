// What the chat's parts share: a message with its citations and memory word, a conversation of the list, a memory
// proposal, as the conversation routes answer them.

export interface Citation {
  readonly index: number;
  readonly documentId: string;
  readonly documentName: string;
  readonly documentVersion?: number;
  readonly contentHash?: string;
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly text?: string;
  readonly summary?: { readonly text: string } | null;
}

interface MemoryWord {
  readonly proposals?: readonly { id: string; text: string }[];
  readonly flagged?: string | null;
  readonly saved?: readonly { id: string; text: string }[];
}

/** A question's attachment as the messages route lists it (its text stays on the server). */
export interface AttachmentInfo {
  readonly name: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
}

export interface ChatMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string | null;
  readonly citations: readonly Citation[];
  readonly status?: 'complete' | 'incomplete';
  readonly memory?: MemoryWord;
  readonly streaming?: boolean;
  readonly attachments?: readonly AttachmentInfo[];
  /** The model that wrote an answer (the messages route's; usage is the provenance's). */
  readonly model?: string | null;
  readonly createdAt?: string;
  /** The message it follows (the messages route's; absent on a turn not reloaded yet). */
  readonly parentId?: string | null;
  /** Its alternatives (an edited or regenerated question's other versions), null when it has none. */
  readonly siblings?: Siblings | null;
  /** The tools the streamed answer called so far (a stored answer's are in its provenance and sandbox). */
  readonly tools?: readonly LiveToolCall[];
  /** The calls of the streamed answer that waited for the person's decision (`tool_approval_required`). */
  readonly approvals?: readonly ApprovalAsked[];
  /** The questions the streamed answer's tools asked the person (`tool_elicitation_required`). */
  readonly elicitations?: readonly ElicitationAsked[];
  /** Apps that act in each person's name and that the person has not connected (`tool_auth_required`). */
  readonly connectApps?: readonly ConnectAsked[];
}

export interface ConnectAsked {
  readonly appId: string;
  /** Where to POST to start connecting. */
  readonly connectUrl: string;
}

export interface ElicitationAsked {
  /** The id the answer route takes. */
  readonly elicitationId: string;
  /** The tool's name, as the model calls it. */
  readonly name: string;
  readonly message: string;
  readonly requestedSchema: Readonly<Record<string, unknown>>;
}

/** A running call's progress, as its server last reported it. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface ApprovalAsked {
  /** The id the decision route takes. */
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

export interface Siblings {
  readonly ids: readonly string[];
  readonly index: number;
}

export interface LiveToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  /** Unset while the tool runs. */
  readonly ok?: boolean;
  /** The MCP App view its result renders in. */
  readonly view?: ToolCallView;
  readonly progress?: ToolProgress;
  /** The lines its server logged while it ran (the last few). */
  readonly logs?: readonly string[];
}

/** An MCP App view of a tool call: its App, its `ui://` resource and the MCP result it is given. */
export interface ToolCallView {
  readonly appId: string;
  readonly uri: string;
  readonly result: unknown;
}

export interface Conversation {
  readonly id: string;
  readonly title: string | null;
  readonly archived: boolean;
  readonly pinned?: boolean;
  readonly visibility?: 'normal' | 'private' | 'incognito';
  readonly lastMessageAt: string | null;
  readonly createdAt?: string;
}

export interface Proposal {
  readonly id: string;
  readonly text: string | null;
}

/** The conversation open in the chat: `?c=` of the address. */
export const conversationQuery = (): string | null => new URLSearchParams(location.search).get('c');
