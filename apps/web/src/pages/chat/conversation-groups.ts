// The conversation list's groups: Pinned first, then by the last message's day (Today, Last 7 days, Older), each
// newest first. Days are the person's local days.
import type { Label } from '../../i18n';
import type { Conversation } from './types';

export interface ConversationGroup {
  readonly label: Label;
  readonly conversations: readonly Conversation[];
}

const DAY = 24 * 60 * 60 * 1000;

const lastActive = (c: Conversation): number => Date.parse(c.lastMessageAt ?? c.createdAt ?? '') || 0;

export function groupConversations(conversations: readonly Conversation[], now: Date): ConversationGroup[] {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const newestFirst = [...conversations].sort((a, b) => lastActive(b) - lastActive(a));
  const groups: { label: Label; test: (c: Conversation) => boolean }[] = [
    { label: 'pinned', test: (c) => c.pinned === true },
    { label: 'today', test: (c) => lastActive(c) >= today },
    { label: 'last7Days', test: (c) => lastActive(c) >= today - 6 * DAY },
    { label: 'older', test: () => true },
  ];
  const placed = new Set<Conversation>();
  return groups
    .map(({ label, test }) => {
      const members = newestFirst.filter((c) => !placed.has(c) && test(c));
      for (const c of members) placed.add(c);
      return { label, conversations: members };
    })
    .filter((group) => group.conversations.length > 0);
}
