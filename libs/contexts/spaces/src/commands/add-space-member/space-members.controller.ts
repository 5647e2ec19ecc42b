// The membership routes of a Space (our extension): add a member by user id, change a member's role, remove a
// member, leave. The rules (who may, up to which role) are the policy's `space.member.change`; the last owner stays.
import { Body, Controller, Delete, HttpCode, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { NotFoundError } from '#kernel';
import { SPACE_MEMBERS_READ_MODEL, SPACES_READ_MODEL } from '../../spaces.read-model.js';
import { ListSpaceMembers } from '../../queries/list-space-members/list-space-members.query.js';
import { SpaceMemberDto, SpaceRoleSchema } from '../../queries/list-space-members/space-member.dto.js';
import { ChangeSpaceMemberRole } from '../change-space-member-role/change-space-member-role.command.js';
import { RemoveSpaceMember } from '../remove-space-member/remove-space-member.command.js';
import { AddSpaceMember } from './add-space-member.command.js';

export const AddSpaceMemberBody = z.strictObject({
  userId: z.string().min(1).max(100).describe('The user to add (invited people are users once they accept)'),
  role: SpaceRoleSchema,
});
export const ChangeSpaceMemberBody = z.strictObject({ role: SpaceRoleSchema });

const SETTLES = [SPACES_READ_MODEL, SPACE_MEMBERS_READ_MODEL];
const DENIED = {
  status: 403,
  description:
    '`space_member_change_denied`: members need the editor role in the Space; `role_above_own`: nobody grants a ' +
    'role above their own or changes a member above them; `own_role_change_denied`: nobody changes their own role',
} as const;
const UNSEEN = {
  status: 404,
  description: 'No such Space (or one the caller has no role in), or no such member',
};
const LAST_OWNER = {
  status: 409,
  description: '`last_owner`: the last owner cannot leave or be demoted',
} as const;

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/spaces')
export class SpaceMembersController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Add a member to a Space (extension)',
    body: AddSpaceMemberBody,
    idempotent: true,
    response: { status: 201, schema: SpaceMemberDto, description: 'The membership' },
    errors: [
      { status: 400, description: '`unknown_user`: no active user with this id' },
      DENIED,
      UNSEEN,
      {
        status: 409,
        description: '`space_member_exists`: already a member with another role (change the role)',
      },
    ],
  })
  @Post(':spaceId/members')
  async add(
    @Param('spaceId') spaceId: string,
    @Body(new ZodBody(AddSpaceMemberBody)) body: z.output<typeof AddSpaceMemberBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.sender.send(
      new AddSpaceMember(spaceId, body.userId, body.role, commandContext(caller), principal),
      SETTLES,
    );
    return this.member(spaceId, body.userId, caller);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Change a member’s role (extension)',
    body: ChangeSpaceMemberBody,
    response: { status: 200, schema: SpaceMemberDto, description: 'The membership' },
    errors: [400, DENIED, UNSEEN, LAST_OWNER],
  })
  @Patch(':spaceId/members/:userId')
  async change(
    @Param('spaceId') spaceId: string,
    @Param('userId') userId: string,
    @Body(new ZodBody(ChangeSpaceMemberBody)) body: z.output<typeof ChangeSpaceMemberBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.sender.send(
      new ChangeSpaceMemberRole(spaceId, userId, body.role, commandContext(caller), principalOf(caller)),
      SETTLES,
    );
    return this.member(spaceId, userId, caller);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Remove a member from a Space (extension)',
    description: 'Their access ends with the answer; their conversations and personal memories stay theirs.',
    response: { status: 204, description: 'Removed' },
    errors: [DENIED, UNSEEN, LAST_OWNER],
  })
  @Delete(':spaceId/members/:userId')
  @HttpCode(204)
  async remove(
    @Param('spaceId') spaceId: string,
    @Param('userId') userId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.sender.send(
      new RemoveSpaceMember(spaceId, userId, commandContext(caller), principalOf(caller)),
      SETTLES,
    );
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Leave a Space (extension)',
    idempotent: true,
    response: { status: 204, description: 'Left' },
    errors: [UNSEEN, LAST_OWNER],
  })
  @Post(':spaceId/leave')
  @HttpCode(204)
  async leave(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.sender.send(
      new RemoveSpaceMember(spaceId, caller.userId, commandContext(caller), principalOf(caller)),
      SETTLES,
    );
  }

  private async member(spaceId: string, userId: string, caller: Caller) {
    const page = await this.queries.execute(
      new ListSpaceMembers(spaceId, { limit: 1 }, principalOf(caller), userId),
    );
    const [member] = page.data;
    if (!member) throw new NotFoundError('Space member', userId);
    return member;
  }
}
