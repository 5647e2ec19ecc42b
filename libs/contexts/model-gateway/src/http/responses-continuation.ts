// What a Responses request continues from: with `previous_response_id`, the input that response was answered from
// and its output; then the request's own input, its `item_reference` items replaced by the items they name (each
// item id says which stored response holds it). Every reference is the caller's own stored response, or a 400 naming
// the field — another person's response is as unknown as one that never existed.
import { PlatformError } from '#kernel';
import type {
  ResponseItem,
  StoredResponse,
  StoredResponses,
} from '../stored-responses/stored-response.repository.js';
import { responseOfItem } from './responses.format.js';

export interface Continuation {
  /** The items the model answers from, in order. */
  readonly input: ResponseItem[];
}

const notFound = (code: string, message: string, param: string): PlatformError =>
  new PlatformError('validation', code, message, param);

export async function continuedInput(
  responses: StoredResponses,
  userId: string,
  body: { readonly input: string | readonly ResponseItem[]; readonly previous_response_id?: string | null },
): Promise<Continuation> {
  const loaded = new Map<string, StoredResponse | null>();
  const load = async (responseId: string) => {
    if (!loaded.has(responseId)) loaded.set(responseId, await responses.find(userId, responseId));
    return loaded.get(responseId) ?? null;
  };
  const input: ResponseItem[] = [];
  const previousId = body.previous_response_id;
  if (previousId) {
    const previous = await load(previousId);
    if (!previous)
      throw notFound(
        'previous_response_not_found',
        `Previous response with id '${previousId}' not found.`,
        'previous_response_id',
      );
    input.push(...previous.input, ...previous.response.output);
  }
  const own =
    typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  for (const [index, item] of own.entries()) {
    if (item.type !== 'item_reference') {
      input.push(item);
      continue;
    }
    const id = typeof item.id === 'string' ? item.id : '';
    const holder = responseOfItem(id);
    const stored = holder ? await load(holder) : null;
    const found = stored && [...stored.input, ...stored.response.output].find((known) => known.id === id);
    if (!found) throw notFound('item_not_found', `Item with id '${id}' not found.`, `input.${index}.id`);
    input.push(found);
  }
  return { input };
}
