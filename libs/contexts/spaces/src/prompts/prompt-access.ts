// The loader of the prompt library: the Space (404 unless the principal may read its prompts) and, for a change,
// the policy's `prompt.change` (403). The rules are the policy's.
import { NotFoundError } from '#kernel';
import { permits, demand, type Principal } from '#access';
import type { ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '../spaces.read-model.js';
import { PROMPTS, type PromptView } from './prompt.js';

export async function promptSpace(
  readStore: ReadStore,
  spaceId: string,
  principal: Principal,
  action: 'prompt.read' | 'prompt.change',
): Promise<SpaceView> {
  const space = await readStore.reader<SpaceView>(SPACES).get(spaceId);
  if (!space || !permits(principal, 'prompt.read', space)) throw new NotFoundError('Space', spaceId);
  demand(principal, action, space, `changing the prompts of Space '${spaceId}' needs the editor role in it`);
  return space;
}

/** The prompt, if it is the Space's (404 otherwise). */
export async function promptOf(readStore: ReadStore, spaceId: string, promptId: string): Promise<PromptView> {
  const prompt = await readStore.reader<PromptView>(PROMPTS).get(promptId);
  if (!prompt || prompt.spaceId !== spaceId) throw new NotFoundError('Prompt', promptId);
  return prompt;
}
