// The setup the end-to-end files share: a Space, an Agent in it with the settings the test needs, and its
// conversation turns. Each step checks its own answer (201), so a test reads as the behaviour it is about.
import { client, CORE, uniqueName } from './api.js';

export type Http = ReturnType<typeof client>;
export type Json = Record<string, unknown>;

export const LLM = `${CORE}/llm`;

/** The route of an Agent's conversation turns. */
export const turnsOf = (agentId: string): string => `${LLM}/${agentId}/conversation`;

export interface TurnReply {
  readonly conversationId: string;
  readonly message: { readonly id: string; readonly content: string };
}

/** A new Space made by `http` (the admin, usually): its id. */
export async function newSpace(http: Http, name = uniqueName('Space')): Promise<string> {
  const reply = await http.post<{ id: string }>(`${CORE}/spaces`, { name });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

/** A new Agent in the Space, with these settings (a unique name unless they give one): its id. */
export async function newAgent(http: Http, spaceId: string, settings: Json = {}): Promise<string> {
  const reply = await http.post<{ id: string }>(`${CORE}/agents`, {
    spaceId,
    name: uniqueName('Agent'),
    ...settings,
  });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

/** A new Space with a new Agent in it: both ids, and the route of the Agent's turns. */
export async function agentInNewSpace(
  http: Http,
  settings: Json = {},
  spaceName?: string,
): Promise<{ spaceId: string; agentId: string; turns: string }> {
  const spaceId = await newSpace(http, spaceName);
  const agentId = await newAgent(http, spaceId, settings);
  return { spaceId, agentId, turns: turnsOf(agentId) };
}

/** One conversation turn with the Agent (a new conversation unless the body names one). */
export const sendTurn = (http: Http, agentId: string, body: Json, headers?: Record<string, string>) =>
  http.post<TurnReply>(turnsOf(agentId), body, headers);
