// A visit of a public Agent's embed starts a visitor session: short-lived, signed, bound to this Agent (see
// EmbedVisitorSessions in #access). The policy says whether an embed visitor may use the Agent (public, not
// personal): else 403 `Agent is not public`. A request from a page of another origin must come from one of the
// Agent's Allowed URLs (the embed page itself is the instance's: frame-ancestors decided who may show it). A session
// still valid for this Agent (sent back as `resume`, kept in the page's sessionStorage for Embed session minutes) is
// answered as it is, so a reload resumes its conversation.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { forbidden, EmbedVisitorSessions, Requires } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { originAllowed } from '../../embed-origins.js';
import { agentById, AgentResolver } from '../../agent-resolver.js';

export interface EmbedSession {
  readonly token: string;
  readonly expiresAt: string;
  readonly agentName: string;
  readonly windowTitle: string;
  readonly sessionMinutes: number;
}

@Requires(AgentResolver, (agents, { agentId }: StartEmbedSession) => agents.embed(agentId, 'new'))
export class StartEmbedSession extends Query<EmbedSession> {
  constructor(
    readonly agentId: string,
    /** The Origin of the request (null when not sent) and the instance's own origin. */
    readonly origin: string | null,
    readonly self: string,
    readonly resume: string | null,
  ) {
    super();
  }
}

@QueryHandler(StartEmbedSession)
export class StartEmbedSessionHandler implements IQueryHandler<StartEmbedSession, EmbedSession> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly sessions: EmbedVisitorSessions,
  ) {}

  async execute({ agentId, origin, self, resume }: StartEmbedSession): Promise<EmbedSession> {
    const agent = await agentById(this.readStore, agentId);
    if (origin !== null && !originAllowed(origin, agent.allowedUrls, self))
      throw forbidden('origin_not_allowed', 'this site may not embed this Agent');
    const kept = resume ? this.sessions.verify(resume) : null;
    const { token, session } =
      kept && kept.agentId === agent.id
        ? { token: resume!, session: kept }
        : this.sessions.issue(agent.id, agent.embedSessionMinutes * 60_000, agent.embedLimits ?? {});
    return {
      token,
      expiresAt: new Date(session.expiresAt).toISOString(),
      agentName: agent.name,
      windowTitle: agent.embedWindowTitle,
      sessionMinutes: agent.embedSessionMinutes,
    };
  }
}
