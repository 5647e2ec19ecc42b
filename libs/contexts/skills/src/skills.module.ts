// The Skills bounded context: versioned instruction bundles with reference files (inline, .md and .zip uploads,
// drafts and published versions, Space, Agent and default availability, a marketplace) as command and query
// slices (a write: the gate asks what its command declares (SkillResolver), then SkillRepository stores the bundle's
// blobs, decides and appends; a read: SkillReader), and the context provider that loads Skills on demand in conversations
// (added to the conversations' list when this module starts), and the Skill-name check an Agent's move passes
// (added to the Agents context's AgentMoveChecks).
import { Module, type OnModuleInit } from '@nestjs/common';
import { AgentMoveChecks, type AgentMoveCheck } from '#agents';
import { ContextProviders, ConversationsModule } from '#conversations';
import { AvailableSkills } from './available-skills.js';
import { ChangeSkillController } from './commands/change-skill/change-skill.controller.js';
import { ChangeSkillHandler } from './commands/change-skill/change-skill.command.js';
import { CreateSkillController } from './commands/create-skill/create-skill.controller.js';
import { CreateSkillHandler } from './commands/create-skill/create-skill.command.js';
import { DeleteOwnedSkillHandler } from './commands/delete-owned-skill/delete-owned-skill.command.js';
import { DeleteSkillController } from './commands/delete-skill/delete-skill.controller.js';
import { DeleteSkillHandler } from './commands/delete-skill/delete-skill.command.js';
import { MarketplaceController } from './commands/marketplace/marketplace.controller.js';
import { ManageMarketplaceHandler } from './commands/marketplace/marketplace.command.js';
import { SeedDefaultSkillHandler } from './commands/seed-default-skill/seed-default-skill.command.js';
import { GetSkillController } from './queries/get-skill/get-skill.controller.js';
import { GetSkillHandler, ListMarketplaceHandler } from './queries/get-skill/get-skill.query.js';
import { GetSkillAsOfHandler } from './queries/get-skill/get-skill-as-of.query.js';
import { ListSkillsAsOfHandler } from './queries/list-skills/list-skills-as-of.query.js';
import { ListSkillsController } from './queries/list-skills/list-skills.controller.js';
import { ListSkillsHandler } from './queries/list-skills/list-skills.query.js';
import { SkillNames } from './skill-names.js';
import { SkillResolver } from './skill-resolver.js';
import { SkillReader } from './skill.reader.js';
import { SkillRepository } from './skill.repository.js';
import { SkillsContextProvider } from './skills.provider.js';

export const SKILL_CONTROLLERS = [
  ListSkillsController,
  CreateSkillController,
  GetSkillController,
  ChangeSkillController,
  DeleteSkillController,
  MarketplaceController,
];

export const SKILL_COMMAND_HANDLERS = [
  CreateSkillHandler,
  ChangeSkillHandler,
  DeleteSkillHandler,
  ManageMarketplaceHandler,
  DeleteOwnedSkillHandler,
  SeedDefaultSkillHandler,
];

export const SKILL_QUERY_HANDLERS = [
  ListSkillsHandler,
  GetSkillHandler,
  ListMarketplaceHandler,
  GetSkillAsOfHandler,
  ListSkillsAsOfHandler,
];

@Module({
  imports: [ConversationsModule],
  controllers: SKILL_CONTROLLERS,
  providers: [
    ...SKILL_COMMAND_HANDLERS,
    ...SKILL_QUERY_HANDLERS,
    SkillRepository,
    SkillReader,
    SkillNames,
    SkillResolver,
    AvailableSkills,
    SkillsContextProvider,
  ],
  exports: [AvailableSkills],
})
export class SkillsModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly skills: SkillsContextProvider,
    private readonly moveChecks: AgentMoveChecks,
    private readonly names: SkillNames,
  ) {}

  /** Asked before an Agent moves into a Space: its Skills' names must be free there. */
  private readonly skillNamesOnMove: AgentMoveCheck = {
    beforeMove: (agent, spaceId) => this.names.requireFreeNamesInSpace(agent.id, spaceId),
  };

  onModuleInit(): void {
    this.contextProviders.add(this.skills);
    this.moveChecks.add(this.skillNamesOnMove);
  }
}
