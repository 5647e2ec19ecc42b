// DELETE /skills/{skillId} (our design): delete permanently, or uninstall an installed marketplace Skill.
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { SKILL_READ_MODELS } from '../../skills.read-model.js';
import { DeleteSkill } from './delete-skill.command.js';

@Controller('api/v1/core/skills/:skillId')
export class DeleteSkillController {
  constructor(private readonly writes: ReadYourWritesBus) {}

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
    await this.writes.send(
      new DeleteSkill(skillId, commandContext(caller), principalOf(caller)),
      SKILL_READ_MODELS,
    );
  }
}
