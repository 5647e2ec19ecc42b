// What a refused Skill action tells the person, in the page's language: the Skill routes' own codes first, then the
// codes every page meets (errorSentence).
import { errorSentence } from '../../errors';
import type { Label } from '../../i18n';

const SKILL_REFUSALS: Readonly<Record<string, Label>> = {
  skill_exists: 'skillNameTaken',
  skill_name_taken: 'skillNameTaken',
  invalid_name: 'skillNameInvalid',
  invalid_skill_name: 'skillNameInvalid',
  invalid_description: 'skillDescriptionInvalid',
  invalid_instructions: 'skillInstructionsInvalid',
  invalid_frontmatter: 'skillFileInvalid',
  skill_md_too_large: 'skillFileInvalid',
};

export const problem = (failure: unknown): string => errorSentence(failure, SKILL_REFUSALS);
