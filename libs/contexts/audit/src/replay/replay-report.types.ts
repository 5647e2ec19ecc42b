// What a regression replay selects and answers: the report `cli replay` writes (JSON, and Markdown from it).
/** Which turns: an Agent's, in a time range, or a list of answer message ids (any combination narrows). */
export interface ReplaySelection {
  readonly agentId?: string;
  readonly from?: string;
  readonly to?: string;
  readonly messageIds?: readonly string[];
  readonly limit?: number;
}

export interface ReplayOptions {
  /** The model key to replay against (a chat model of the registry). */
  readonly model: string;
  /** Search the Knowledge again instead of the passages recorded. */
  readonly reRetrieve?: {
    readonly mode: 'hybrid' | 'bm25' | 'vector';
    readonly limit: number;
    readonly rerank: boolean;
  };
  readonly signal?: AbortSignal;
}

export interface CitedRange {
  readonly documentId: string;
  readonly documentName: string;
  /** The document version the passage was cited from (recorded, or the version a re-retrieval found). */
  readonly documentVersion: number;
  readonly start: number;
  readonly end: number;
}

export interface ReplayedAnswer {
  readonly model: string;
  readonly content: string | null;
  readonly citations: readonly CitedRange[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | null;
  /** Model calls of the answer's tool loop (the recorded answer: absent). */
  readonly steps?: number;
  /**
   * The tools the answer's loop called, in order (the recorded answer: its App tool calls). `recorded`: answered with
   * the recorded result of the original call, the App not called again.
   */
  readonly toolCalls?: readonly {
    readonly name: string;
    readonly arguments: string;
    readonly ok: boolean;
    readonly recorded?: boolean;
  }[];
}

export interface ReplayedTurn {
  readonly conversationId: string;
  readonly messageId: string;
  readonly agentId: string;
  readonly at: string;
  readonly question: string | null;
  readonly old: ReplayedAnswer;
  readonly new: ReplayedAnswer | null;
  /** Why the turn could not be replayed (null when it was). */
  readonly error: string | null;
  readonly citationsKept: readonly CitedRange[];
  readonly citationsLost: readonly CitedRange[];
  readonly citationsAdded: readonly CitedRange[];
  readonly tokenDifference: number;
  readonly costDifferenceUsd: number | null;
  /** The Agent's prompt as of the turn hashes to what the answer recorded. */
  readonly promptVerified: boolean;
  readonly retrieval: 'recorded' | 're-retrieved';
  /** Recorded passages whose text is gone (the document deleted since): sent as a note, not the text. */
  readonly passagesMissing: number;
  /** Memories (at their version) and Skill versions the recorded prompt held, re-sent as recorded. */
  readonly contextItemsReplayed: readonly string[];
  /** Those that could not be re-sent, each with why (erased: its key destroyed, or the memory deleted). */
  readonly contextItemsNotReplayed: readonly string[];
}

export interface ReplayReport {
  readonly generatedAt: string;
  readonly model: string;
  readonly retrieval: 'recorded' | 're-retrieved';
  readonly turns: readonly ReplayedTurn[];
  readonly totals: {
    readonly turns: number;
    readonly replayed: number;
    readonly citationsKept: number;
    readonly citationsLost: number;
    readonly citationsAdded: number;
    readonly oldTokens: number;
    readonly newTokens: number;
    readonly oldCostUsd: number;
    readonly newCostUsd: number;
  };
}
