import { type PromptEvent } from './prompt.js';
import { promptDecider } from './prompt.decider.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(promptDecider);
const fields = { title: 'Weekly report', text: 'Summarise the week.', description: '', tags: ['ops'] };
const created: PromptEvent = { type: 'PromptCreated', data: { promptId: 'p1', spaceId: 's1', ...fields } };

describe('the prompt decider (the Space prompt library)', () => {
  it('creates a prompt (version 1); refuses an empty title or text', () => {
    given()
      .when({ type: 'CreatePrompt', promptId: 'p1', spaceId: 's1', ...fields })
      .then([created]);
    given()
      .when({ type: 'CreatePrompt', promptId: 'p1', spaceId: 's1', ...fields, text: '  ' })
      .thenThrows('invalid_text');
  });

  it('each revision is a new version holding the whole prompt; an unchanged one records nothing', () => {
    given(created)
      .when({ type: 'RevisePrompt', promptId: 'p1', text: 'Summarise the week in three lines.' })
      .then([
        {
          type: 'PromptRevised',
          data: { promptId: 'p1', version: 2, ...fields, text: 'Summarise the week in three lines.' },
        },
      ]);
    given(created).when({ type: 'RevisePrompt', promptId: 'p1', title: 'Weekly report' }).then([]);
  });

  it('deletes once; a deleted prompt is not revised', () => {
    given(created)
      .when({ type: 'DeletePrompt', promptId: 'p1' })
      .then([{ type: 'PromptDeleted', data: { promptId: 'p1' } }]);
    given(created, { type: 'PromptDeleted', data: { promptId: 'p1' } })
      .when({ type: 'RevisePrompt', promptId: 'p1', text: 'x' })
      .thenThrows('prompt_not_found');
  });
});
