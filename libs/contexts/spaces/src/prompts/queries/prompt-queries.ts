// The prompt library's reads: a Space's prompts (current versions), one prompt, one earlier version. Members read
// them (the policy's `prompt.read`).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import type { ListQuery } from '#http';
import { Requires, type Principal } from '#access';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { PROMPT_VERSIONS, PROMPTS, type PromptVersionView, type PromptView } from '../prompt.js';
import { SpaceResolver } from '../../space-resolver.js';
import { promptOf } from '../prompt-access.js';

@Requires(SpaceResolver, (spaces, { spaceId }: ListPrompts) => spaces.prompts(spaceId, 'prompt.read'))
export class ListPrompts extends Query<Page<PromptView>> {
  constructor(
    readonly spaceId: string,
    readonly query: z.output<typeof ListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@Requires(SpaceResolver, (spaces, { spaceId }: GetPrompt) => spaces.prompts(spaceId, 'prompt.read'))
export class GetPrompt extends Query<PromptView> {
  constructor(
    readonly spaceId: string,
    readonly promptId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@Requires(SpaceResolver, (spaces, { spaceId }: GetPromptVersion) => spaces.prompts(spaceId, 'prompt.read'))
export class GetPromptVersion extends Query<PromptVersionView> {
  constructor(
    readonly spaceId: string,
    readonly promptId: string,
    readonly version: number,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListPrompts)
export class ListPromptsHandler implements IQueryHandler<ListPrompts> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ spaceId, query }: ListPrompts): Promise<Page<PromptView>> {
    return this.readStore
      .reader<PromptView>(PROMPTS)
      .find({ spaceId }, { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null });
  }
}

@QueryHandler(GetPrompt)
export class GetPromptHandler implements IQueryHandler<GetPrompt> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ spaceId, promptId }: GetPrompt): Promise<PromptView> {
    return promptOf(this.readStore, spaceId, promptId);
  }
}

@QueryHandler(GetPromptVersion)
export class GetPromptVersionHandler implements IQueryHandler<GetPromptVersion> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ spaceId, promptId, version }: GetPromptVersion): Promise<PromptVersionView> {
    await promptOf(this.readStore, spaceId, promptId);
    const found = await this.readStore
      .reader<PromptVersionView>(PROMPT_VERSIONS)
      .get(`${promptId}:${version}`);
    if (!found) throw new NotFoundError('Prompt version', `${promptId}:${version}`);
    return found;
  }
}
