// A turn that starts from a prompt of the Space prompt library (`promptId`, optionally `promptVersion`): the prompt is
// read through the Spaces context's own query, so its rule holds (the principal reads the prompts of the Space, the
// policy's `prompt.read`), and only from the Agent's Space: a prompt of another Space, a deleted one, an unknown
// version or an Agent without a Space is 404 `prompt_not_found` (the same answer, so no other Space's prompt is
// confirmed). Its text is the user message, or comes before it (a blank line between). The version used is recorded
// with the answer's provenance (`prompt:<promptId>@<version>`).
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { AgentView } from '#agents';
import { principalOf, type Caller } from '#access';
import { NotFoundError } from '#kernel';
import { GetPrompt, GetPromptVersion, type PromptVersionView, type PromptView } from '#spaces';
import type { ContextItem } from './context-providers.js';

export interface LibraryPromptRequest {
  readonly promptId: string;
  readonly promptVersion?: number | undefined;
}

export interface PromptedMessage {
  /** The user message as posted: the prompt's text, then the message (if any). */
  readonly content: string;
  /** The prompt version, as the answer's provenance names it. */
  readonly item: ContextItem;
}

@Injectable()
export class LibraryPrompts {
  constructor(private readonly queries: QueryBus) {}

  async compose(
    agent: AgentView,
    caller: Caller,
    request: LibraryPromptRequest,
    message: string | undefined,
  ): Promise<PromptedMessage> {
    const prompt = await this.read(agent, caller, request);
    return {
      content: message === undefined || message.length === 0 ? prompt.text : `${prompt.text}\n\n${message}`,
      item: { kind: 'prompt', id: request.promptId, version: prompt.version },
    };
  }

  private async read(
    agent: AgentView,
    caller: Caller,
    { promptId, promptVersion }: LibraryPromptRequest,
  ): Promise<PromptView | PromptVersionView> {
    const notFound = () => Object.assign(new NotFoundError('Prompt', promptId), { param: 'promptId' });
    if (!agent.spaceId) throw notFound();
    const principal = principalOf(caller);
    try {
      return await this.queries.execute(
        promptVersion === undefined
          ? new GetPrompt(agent.spaceId, promptId, principal)
          : new GetPromptVersion(agent.spaceId, promptId, promptVersion, principal),
      );
    } catch (error) {
      // The Space's prompts not readable, no such prompt in it, or no such version: one answer.
      if (error instanceof NotFoundError) throw notFound();
      throw error;
    }
  }
}
