// The Spaces bounded context: its command and query slices. Which Spaces a caller reaches through Agents it asks
// the SpaceGrants the Agents context provides.
import { Module } from '@nestjs/common';
import { ChangeSpaceController } from './commands/change-space/change-space.controller.js';
import { ChangeSpaceHandler } from './commands/change-space/change-space.command.js';
import { CreateSpaceController } from './commands/create-space/create-space.controller.js';
import { CreateSpaceHandler } from './commands/create-space/create-space.command.js';
import { DeleteSpaceController } from './commands/delete-space/delete-space.controller.js';
import { DeleteSpaceHandler } from './commands/delete-space/delete-space.command.js';
import { GetSpaceController } from './queries/get-space/get-space.controller.js';
import { GetSpaceHandler } from './queries/get-space/get-space.query.js';
import { ListSpacesController } from './queries/list-spaces/list-spaces.controller.js';
import { ListSpacesHandler } from './queries/list-spaces/list-spaces.query.js';
import { SpaceMembersController } from './commands/add-space-member/space-members.controller.js';
import { AddSpaceMemberHandler } from './commands/add-space-member/add-space-member.command.js';
import { AdoptSpaceCreatorHandler } from './commands/adopt-space-creator/adopt-space-creator.command.js';
import { ChangeSpaceMemberRoleHandler } from './commands/change-space-member-role/change-space-member-role.command.js';
import { RemoveSpaceMemberHandler } from './commands/remove-space-member/remove-space-member.command.js';
import { ListSpaceMembersController } from './queries/list-space-members/list-space-members.controller.js';
import { ListSpaceMembersHandler } from './queries/list-space-members/list-space-members.query.js';
import { SearchMemberCandidatesController } from './queries/search-member-candidates/search-member-candidates.controller.js';
import { SearchMemberCandidatesHandler } from './queries/search-member-candidates/search-member-candidates.query.js';
import { SpaceCreationController } from './commands/set-space-creation-roles/space-creation.controller.js';
import { PromptsController } from './prompts/prompts.controller.js';
import { CreatePromptHandler } from './prompts/commands/create-prompt/create-prompt.command.js';
import { RevisePromptHandler } from './prompts/commands/revise-prompt/revise-prompt.command.js';
import { DeletePromptHandler } from './prompts/commands/delete-prompt/delete-prompt.command.js';
import {
  GetPromptHandler,
  GetPromptVersionHandler,
  ListPromptsHandler,
} from './prompts/queries/prompt-queries.js';
import { CreatePersonalSpaceHandler } from './commands/create-personal-space/create-personal-space.command.js';
import { SetSpaceCreationRolesHandler } from './commands/set-space-creation-roles/set-space-creation-roles.command.js';
import { GetSpaceCreationRolesHandler } from './queries/get-space-creation-roles/get-space-creation-roles.query.js';
import { PeopleDirectoryController } from './commands/set-people-directory/people-directory.controller.js';
import { SetPeopleDirectoryHandler } from './commands/set-people-directory/set-people-directory.command.js';
import { SpaceResolver } from './space-resolver.js';
import { GetPeopleDirectoryHandler } from './queries/get-people-directory/get-people-directory.query.js';

export const SPACE_CONTROLLERS = [
  ListSpacesController,
  GetSpaceController,
  CreateSpaceController,
  ChangeSpaceController,
  DeleteSpaceController,
  ListSpaceMembersController,
  SearchMemberCandidatesController,
  SpaceMembersController,
  SpaceCreationController,
  PeopleDirectoryController,
  PromptsController,
];

export const SPACE_COMMAND_HANDLERS = [
  CreateSpaceHandler,
  ChangeSpaceHandler,
  DeleteSpaceHandler,
  AddSpaceMemberHandler,
  AdoptSpaceCreatorHandler,
  ChangeSpaceMemberRoleHandler,
  RemoveSpaceMemberHandler,
  SetSpaceCreationRolesHandler,
  SetPeopleDirectoryHandler,
  CreatePersonalSpaceHandler,
  CreatePromptHandler,
  RevisePromptHandler,
  DeletePromptHandler,
];

export const SPACE_QUERY_HANDLERS = [
  ListSpacesHandler,
  GetSpaceHandler,
  ListSpaceMembersHandler,
  SearchMemberCandidatesHandler,
  GetSpaceCreationRolesHandler,
  GetPeopleDirectoryHandler,
  ListPromptsHandler,
  GetPromptHandler,
  GetPromptVersionHandler,
];

@Module({
  controllers: SPACE_CONTROLLERS,
  providers: [...SPACE_COMMAND_HANDLERS, ...SPACE_QUERY_HANDLERS, SpaceResolver],
})
export class SpacesModule {}
