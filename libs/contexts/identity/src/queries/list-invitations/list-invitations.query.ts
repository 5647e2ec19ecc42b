// Invitations, newest first, and one by id (admins).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import type { ListQuery } from '#http';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { AskedAtRoute, type Caller } from '#access';
import { INVITATIONS, type InvitationView } from '../../invitations.read-model.js';

@AskedAtRoute('the route row asks user.manage (admins)')
export class ListInvitations extends Query<Page<InvitationView>> {
  constructor(
    readonly query: z.output<typeof ListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@AskedAtRoute('the route row asks user.manage (admins); the invitation writes answer with it')
export class GetInvitation extends Query<InvitationView> {
  constructor(
    readonly invitationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListInvitations)
export class ListInvitationsHandler implements IQueryHandler<ListInvitations> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  execute({ query }: ListInvitations): Promise<Page<InvitationView>> {
    return this.readStore
      .reader<InvitationView>(INVITATIONS)
      .find({}, { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null });
  }
}

@QueryHandler(GetInvitation)
export class GetInvitationHandler implements IQueryHandler<GetInvitation> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ invitationId }: GetInvitation): Promise<InvitationView> {
    const invitation = await this.readStore.reader<InvitationView>(INVITATIONS).get(invitationId);
    if (!invitation) throw new NotFoundError('Invitation', invitationId);
    return invitation;
  }
}
