// What the turns of a reloaded conversation did with memory, put back at their answers: the memories the person's
// turns saved (the memories route tells each one's own where it was saved from) and the shared-memory proposals still
// waiting for their answer. A refused candidate's notice is told once, with its answer (nothing keeps it per message).
import { api, CORE } from '../../api';
import type { List } from '../../state';
import type { ChatMessage } from './types';

interface StoredMemory {
  readonly id: string;
  readonly bucket: 'personal' | 'shared';
  readonly text: string;
  readonly savedFrom?: { readonly conversationId: string; readonly messageId: string };
}

interface PendingProposal {
  readonly id: string;
  readonly text: string | null;
  readonly conversationId: string;
  readonly messageId: string;
}

/** The messages with each answer's memory word, as its turn told it (keyed by the answer's question). */
export async function withStoredMemory(
  agentId: string,
  conversationId: string,
  messages: readonly ChatMessage[],
): Promise<ChatMessage[]> {
  const [memories, proposals] = await Promise.all([
    api<List<StoredMemory>>('GET', `${CORE}/memory/${agentId}/memories?bucket=all`).catch(() => null),
    api<List<PendingProposal>>('GET', `${CORE}/memory/${agentId}/proposals`).catch(() => null),
  ]);
  const here = (from: { conversationId: string } | undefined) => from?.conversationId === conversationId;
  return messages.map((message) => {
    if (message.role !== 'assistant' || !message.parentId || message.memory) return message;
    const question = message.parentId;
    const saved = (memories?.data ?? [])
      .filter((memory) => here(memory.savedFrom) && memory.savedFrom!.messageId === question)
      .map(({ id, text }) => ({ id, text }));
    const pending = (proposals?.data ?? [])
      .filter((proposal) => here(proposal) && proposal.messageId === question)
      .map(({ id, text }) => ({ id, text: text ?? '' }));
    return saved.length || pending.length ? { ...message, memory: { saved, proposals: pending } } : message;
  });
}
