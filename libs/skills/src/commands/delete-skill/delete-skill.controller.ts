// DELETE /skills/{skillId} (our design): delete permanently, or uninstall an installed marketplace Skill.
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { DeleteSkill } from './delete-skill.command.js';

@Controller('api/v1/core/skills/:skillId')
export class DeleteSkillController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'Delete a Skill (permanent), or uninstall an installed one',
    description:
      'Its content (instructions and reference files) is purged. A Skill listed on the marketplace must be archived first.',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404, { status: 409, description: '`skill_listed_on_marketplace`' }],
  })
  @Delete()
  @HttpCode(204)
  async delete(@Param('skillId') skillId: string, @CurrentCaller() caller: Caller) {
    await this.bus.execute(new DeleteSkill(skillId, caller));
  }
}
