// What the prompt library's messages ask: the Space (404 unless the principal may read its prompts) and, for a
// change, the policy's `prompt.change` (403); and the prompt a message names (404 unless it is the Space's).
import { NotFoundError } from '#kernel';
import { ask, type Ask } from '#access';
import type { ReadStore } from '#read-store';
import { spaceById } from '../space-membership.js';
import { PROMPTS, type PromptView } from './prompt.js';

/** `prompt.read` on the Space (denied: 404), and `prompt.change` (403) when `action` is a change. */
export async function promptAsks(
  readStore: ReadStore,
  spaceId: string,
  action: 'prompt.read' | 'prompt.change',
): Promise<readonly Ask[]> {
  const space = await spaceById(readStore, spaceId);
  const read = ask('prompt.read', space, () => new NotFoundError('Space', spaceId));
  return action === 'prompt.read'
    ? [read]
    : [read, ask(action, space, `changing the prompts of Space '${spaceId}' needs the editor role in it`)];
}

/** The prompt, if it is the Space's (404 otherwise). */
export async function promptOf(readStore: ReadStore, spaceId: string, promptId: string): Promise<PromptView> {
  const prompt = await readStore.reader<PromptView>(PROMPTS).get(promptId);
  if (!prompt || prompt.spaceId !== spaceId) throw new NotFoundError('Prompt', promptId);
  return prompt;
}
