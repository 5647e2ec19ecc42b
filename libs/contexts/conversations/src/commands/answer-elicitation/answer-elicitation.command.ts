// The answer of the person whose turn it is to a question a tool's server asks during a call (MCP elicitation):
// accept with the form's content (checked against the requested schema: 400 when it does not fit, nothing answered),
// decline or cancel. Only the conversation's owner reaches it (anyone else: 404, as for an unknown conversation), and
// only while the question waits on this process (else 404 `elicitation_not_found`). The answer goes to the server;
// what the tool makes of it is the call's result, recorded sealed like every App tool call's.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PlatformError, ValidationError } from '#kernel';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ToolElicitations, type ElicitationAnswer } from '../../runtime/tool-elicitations.js';

export const elicitationNotFound = (elicitationId: string): PlatformError =>
  new PlatformError(
    'not_found',
    'elicitation_not_found',
    `No question '${elicitationId}' of this conversation waits for an answer`,
    'elicitationId',
  );

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: AnswerElicitation) =>
  conversations.owned(agentId, conversationId),
)
export class AnswerElicitation extends Command<{
  elicitationId: string;
  action: ElicitationAnswer['action'];
}> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly elicitationId: string,
    readonly answer: ElicitationAnswer,
    readonly userId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AnswerElicitation)
export class AnswerElicitationHandler implements ICommandHandler<AnswerElicitation> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly elicitations: ToolElicitations,
  ) {}

  async execute({ agentId, conversationId, elicitationId, answer, userId }: AnswerElicitation) {
    const owned = await this.directory.owned(agentId, conversationId);
    const answered = this.elicitations.answer(
      elicitationId,
      { agentId, conversationId: owned.record.id, userId },
      answer,
    );
    if (answered === 'not_found') throw elicitationNotFound(elicitationId);
    if (answered !== 'answered')
      throw new ValidationError(
        'invalid_elicitation_content',
        `The content does not fit the requested schema: ${answered.problems.slice(0, 5).join('; ')}`,
        'content',
      );
    return { elicitationId, action: answer.action };
  }
}
