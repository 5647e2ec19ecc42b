// The Space prompt library (our extension, issue 22 §3): GET/POST /spaces/{spaceId}/prompts,
// GET/PATCH/DELETE /spaces/{spaceId}/prompts/{promptId}, GET …/versions/{version}. Members read; editors change.
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodBody, ZodQuery } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { ValidationError } from '#kernel';
import { CreatePrompt } from './commands/create-prompt/create-prompt.command.js';
import { RevisePrompt } from './commands/revise-prompt/revise-prompt.command.js';
import { DeletePrompt } from './commands/delete-prompt/delete-prompt.command.js';
import { GetPrompt, GetPromptVersion, ListPrompts } from './queries/prompt-queries.js';
import { PROMPT_VERSIONS_READ_MODEL, PROMPTS_READ_MODEL } from './prompt.js';

const fields = {
  title: z.string().trim().min(1).max(200),
  text: z.string().min(1).max(100_000),
  description: z.string().max(2000),
  tags: z.array(z.string().trim().min(1).max(50)).max(20),
};

export const CreatePromptBody = z.strictObject({
  title: fields.title,
  text: fields.text,
  description: fields.description.optional(),
  tags: fields.tags.optional(),
});

export const RevisePromptBody = z
  .strictObject({
    title: fields.title.optional(),
    text: fields.text.optional(),
    description: fields.description.optional(),
    tags: fields.tags.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of title, text, description, tags');

const PromptDto = z.object({
  id: z.string(),
  spaceId: z.string(),
  version: z.number().int().describe('The current version: 1 when created, one more with each revision'),
  title: z.string(),
  text: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const PromptVersionDto = PromptDto.omit({ updatedAt: true }).extend({ promptId: z.string() });

const SETTLES = [PROMPTS_READ_MODEL, PROMPT_VERSIONS_READ_MODEL];
const UNSEEN = {
  status: 404,
  description: 'No such Space (or one the caller has no role in), or no such prompt',
};
const EDITORS = {
  status: 403,
  description: '`space_change_denied`: changing prompts needs the editor role',
} as const;

@Controller('api/v1/core/spaces')
export class PromptsController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'List the prompts of a Space (extension)',
    query: ListQuery,
    response: { status: 200, schema: listOf(PromptDto), description: 'A page of prompts, oldest first' },
    errors: [400, UNSEEN],
  })
  @Get(':spaceId/prompts')
  list(
    @Param('spaceId') spaceId: string,
    @Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListPrompts(spaceId, query, principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Create a prompt in a Space (extension, editors)',
    body: CreatePromptBody,
    idempotent: true,
    response: { status: 201, schema: PromptDto, description: 'The prompt (version 1)' },
    errors: [400, EDITORS, UNSEEN],
  })
  @UseInterceptors(IdempotencyInterceptor)
  @Post(':spaceId/prompts')
  async create(
    @Param('spaceId') spaceId: string,
    @Body(new ZodBody(CreatePromptBody)) body: z.output<typeof CreatePromptBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    const { id } = await this.sender.send(
      new CreatePrompt(
        spaceId,
        { title: body.title, text: body.text, description: body.description ?? '', tags: body.tags ?? [] },
        commandContext(caller),
        principal,
      ),
      SETTLES,
    );
    return this.queries.execute(new GetPrompt(spaceId, id, principal));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Get a prompt (extension)',
    response: { status: 200, schema: PromptDto, description: 'The prompt, its current version' },
    errors: [UNSEEN],
  })
  @Get(':spaceId/prompts/:promptId')
  get(
    @Param('spaceId') spaceId: string,
    @Param('promptId') promptId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetPrompt(spaceId, promptId, principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Revise a prompt (extension, editors): a new version; earlier ones stay readable',
    body: RevisePromptBody,
    response: { status: 200, schema: PromptDto, description: 'The prompt, its new version' },
    errors: [400, EDITORS, UNSEEN],
  })
  @Patch(':spaceId/prompts/:promptId')
  async revise(
    @Param('spaceId') spaceId: string,
    @Param('promptId') promptId: string,
    @Body(new ZodBody(RevisePromptBody)) body: z.output<typeof RevisePromptBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.sender.send(
      new RevisePrompt(spaceId, promptId, body, commandContext(caller), principal),
      SETTLES,
    );
    return this.queries.execute(new GetPrompt(spaceId, promptId, principal));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Delete a prompt (extension, editors)',
    response: { status: 204, description: 'Deleted' },
    errors: [EDITORS, UNSEEN],
  })
  @Delete(':spaceId/prompts/:promptId')
  @HttpCode(204)
  async delete(
    @Param('spaceId') spaceId: string,
    @Param('promptId') promptId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.sender.send(
      new DeletePrompt(spaceId, promptId, commandContext(caller), principalOf(caller)),
      SETTLES,
    );
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Get an earlier version of a prompt (extension)',
    response: { status: 200, schema: PromptVersionDto, description: 'That version' },
    errors: [400, UNSEEN],
  })
  @Get(':spaceId/prompts/:promptId/versions/:version')
  version(
    @Param('spaceId') spaceId: string,
    @Param('promptId') promptId: string,
    @Param('version') version: string,
    @CurrentCaller() caller: Caller,
  ) {
    const number = Number(version);
    if (!/^[1-9]\d{0,8}$/.test(version))
      throw new ValidationError('invalid_version', 'version is a positive whole number', 'version');
    return this.queries.execute(new GetPromptVersion(spaceId, promptId, number, principalOf(caller)));
  }
}
