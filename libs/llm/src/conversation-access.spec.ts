import type { Caller } from '#identity';
import type { AgentView } from '#agents';
import { ConversationAccess } from './conversation-access.js';

const caller = { userId: 'usr_1', isAdmin: true } as Caller;
const agent = { id: 'agt_1', isPersonal: false, ownerUserId: null, isPublic: true } as AgentView;

describe('ConversationAccess (before conversations exist)', () => {
  it.each(['conv_0192abc', 'x', 'c'.repeat(128)])(
    'never returns history: %s is 404 conversation_not_found, even for an admin on a public Agent',
    async (conversationId) => {
      await expect(new ConversationAccess().historyFor(caller, agent, conversationId)).rejects.toMatchObject({
        kind: 'not_found',
        code: 'conversation_not_found',
        param: 'conversationId',
      });
    },
  );
});
