import { projectionHarness } from '#testing/projection-harness';
import { PROMPT_VERSIONS, PROMPTS } from '#spaces';
import { promptsProjector } from './prompts.projector.js';

const fields = { title: 'Weekly report', text: 'Summarise the week.', description: '', tags: [] };

describe('prompts projection', () => {
  it('keeps the current version and every version; deleting drops the prompt', async () => {
    const h = await projectionHarness(promptsProjector);
    const e1 = h.envelope({ type: 'PromptCreated', data: { promptId: 'p1', spaceId: 's1', ...fields } });
    const e2 = h.envelope({
      type: 'PromptRevised',
      data: { promptId: 'p1', version: 2, ...fields, text: 'Shorter.' },
    });
    await h.apply(e1, e2);
    expect(await h.get(PROMPTS, 'p1')).toMatchObject({ spaceId: 's1', version: 2, text: 'Shorter.' });
    expect(await h.get(PROMPT_VERSIONS, 'p1:1')).toMatchObject({ version: 1, text: 'Summarise the week.' });
    expect(await h.get(PROMPT_VERSIONS, 'p1:2')).toMatchObject({
      version: 2,
      spaceId: 's1',
      text: 'Shorter.',
    });
    await h.apply(h.envelope({ type: 'PromptDeleted', data: { promptId: 'p1' } }));
    expect(await h.get(PROMPTS, 'p1')).toBeNull();
  });

  it("removes a deleted Space's prompts and their versions, and only those; a replay changes nothing (issue 22 gap 5)", async () => {
    const h = await projectionHarness(promptsProjector);
    await h.apply(
      h.envelope({ type: 'PromptCreated', data: { promptId: 'p1', spaceId: 's1', ...fields } }),
      h.envelope({ type: 'PromptRevised', data: { promptId: 'p1', version: 2, ...fields, text: 'Two.' } }),
      h.envelope({ type: 'PromptCreated', data: { promptId: 'p2', spaceId: 's1', ...fields } }),
      h.envelope({ type: 'PromptCreated', data: { promptId: 'q1', spaceId: 's2', ...fields } }),
    );
    const deleted = h.envelope({ type: 'SpaceDeleted', data: { spaceId: 's1' } });
    await h.apply(deleted);
    for (const [collection, id] of [
      [PROMPTS, 'p1'],
      [PROMPTS, 'p2'],
      [PROMPT_VERSIONS, 'p1:1'],
      [PROMPT_VERSIONS, 'p1:2'],
      [PROMPT_VERSIONS, 'p2:1'],
    ] as const)
      expect(await h.get(collection, id)).toBeNull();
    expect(await h.get(PROMPTS, 'q1')).toMatchObject({ spaceId: 's2' });
    expect(await h.get(PROMPT_VERSIONS, 'q1:1')).toMatchObject({ spaceId: 's2' });
    await h.apply(deleted);
    expect(await h.get(PROMPTS, 'q1')).toMatchObject({ spaceId: 's2' });
  });
});
