// The memory shapes the memories page reads (the OpenAPI's MemoryDto and MemoryVersionDto, as far as the page uses them).
export interface Memory {
  readonly id: string;
  readonly bucket: 'personal' | 'shared';
  readonly text: string;
  readonly version: number;
  /** Shared memories listed to the Agent's managers: who contributed it. */
  readonly contributor?: {
    readonly userId: string | null;
    readonly via: 'direct' | 'proposal' | 'extraction';
  };
  /** Shared memories listed to the Agent's managers: the answers that used it, oldest first. */
  readonly answers?: readonly {
    readonly conversationId: string;
    readonly messageId: string;
    readonly at: string;
  }[];
}

export interface MemoryVersion {
  readonly version: number;
  readonly text: string | null;
  readonly reason: 'added' | 'edited' | 'superseded' | 'rolled_back';
}
