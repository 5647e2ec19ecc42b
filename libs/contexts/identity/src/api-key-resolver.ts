// What the policy reads about API keys, loaded for the gate (#access enforcement): managing keys is an admin's (and
// the platform's: the bootstrap key, the keys of Developer Settings); a key an admin issues for a person grants only
// Agents that person may use (`agent.use` asked as the owner: 400 `grant_unusable`); a key of one's own grants only
// Agents the caller may use itself (403 `agent_access_denied`); revoking or rotating touches only one's own keys
// (`user.own`: another user's is 404, whose existence is not confirmed).
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  ask,
  asPrincipal,
  forbidden,
  AgentDirectory,
  userIdOf,
  type AgentAccess,
  type Ask,
  type Principal,
  type SessionPrincipal,
} from '#access';
import { API_KEYS, type ApiKeyView } from './api-keys.read-model.js';
import type { IssueApiKeyInput } from './commands/issue-api-key/issue-api-key.input.js';
import { USERS, type UserView } from './users.read-model.js';

/** `apiKey.manage`: admins, and the platform. */
export const manageKeys = (): Ask => ask('apiKey.manage', null, 'managing API keys needs an admin');

/** `apiKey.own`: a user's principal (a session, or a key of theirs). */
const ownKeys = (): Ask => ask('apiKey.own', null, 'this principal has no keys of its own');

/** The key's owner if already a user: by email, by id, or (no owner named) the issuer's own user. */
export async function knownOwner(
  readStore: ReadStore,
  input: IssueApiKeyInput,
  principal: Principal,
): Promise<UserView | undefined> {
  const owner = input.owner;
  const users = readStore.reader<UserView>(USERS);
  if (typeof owner === 'object')
    return (await users.find({ email: owner.email.toLowerCase() }, { limit: 1 })).data[0];
  const userId = owner ?? userIdOf(principal);
  return userId ? ((await users.get(userId)) ?? undefined) : undefined;
}

/** The owner as the person the key will act for; a new email's person has no role in any Space yet. */
const asPerson = (known: UserView | undefined, input: IssueApiKeyInput): SessionPrincipal =>
  known
    ? { kind: 'session', userId: known.id, isAdmin: known.role === 'admin' }
    : { kind: 'session', userId: '', isAdmin: input.isAdmin };

/** Loads what the gate asks about an API key a message names or the Agents it grants. */
@Injectable()
export class ApiKeyResolver {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly agents: AgentDirectory,
  ) {}

  /**
   * Issuing a key: `apiKey.manage`, then `agent.use` of each granted Agent asked as the owner (400 `grant_unusable`
   * naming the Agent and why, before a new owner is registered: a key whose every call would be 403 is not issued).
   * The platform's keys are the bootstrap key (every Agent) and those of Developer Settings, asked before.
   */
  async issue(input: IssueApiKeyInput, principal: Principal): Promise<readonly Ask[]> {
    const access = input.agentAccess;
    if (asPrincipal(principal).kind === 'platform' || access.kind === 'all') return [manageKeys()];
    const owner = asPerson(await knownOwner(this.readStore, input, principal), input);
    const found = await this.agents.ownership(access.agentIds);
    const unusable = (agentId: string, why: string) =>
      new ValidationError('grant_unusable', `the key could not use Agent '${agentId}': ${why}`, 'agents');
    return [
      manageKeys(),
      ...access.agentIds.map((agentId) => {
        const agent = found.get(agentId);
        if (!agent) throw unusable(agentId, 'there is no such Agent');
        const why = agent.isPersonal
          ? "it is another person's personal Agent"
          : "its owner has no role in the Agent's Space: add them to it first";
        return ask('agent.use', agent, () => unusable(agentId, why), { who: owner });
      }),
    ];
  }

  /**
   * A key of one's own granting these Agents: each one the caller may use itself (403, not silently narrowed), and
   * every Agent only for a caller that reaches every Agent (the policy's scope of `agent.use` lists none).
   */
  async grantable(access: AgentAccess): Promise<readonly Ask[]> {
    if (access.kind === 'all')
      return [
        ownKeys(),
        ask('apiKey.grant.all', null, 'a key granted every Agent needs a caller that reaches every Agent'),
      ];
    const found = await this.agents.ownership(access.agentIds);
    const denied = (agentId: string) =>
      forbidden('agent_access_denied', `you may not grant Agent '${agentId}'`);
    return [
      ownKeys(),
      ...access.agentIds.map((agentId) => {
        const agent = found.get(agentId);
        if (!agent) throw denied(agentId);
        return ask('agent.use', agent, () => denied(agentId));
      }),
    ];
  }

  /** One's own unrevoked key: `apiKey.own`, then `user.own` of the key (404 for another user's, as for none). */
  async own(apiKeyId: string): Promise<readonly Ask[]> {
    const notFound = () => new NotFoundError('API key', apiKeyId);
    const key = await this.readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
    if (!key || key.revoked) throw notFound();
    return [ownKeys(), ask('user.own', { ownerUserId: key.ownerUserId }, notFound)];
  }
}
