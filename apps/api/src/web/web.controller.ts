// The web app and the embed page, served by the api (no CDN, nothing fetched at run time): the app's routes answer
// its one page (the browser routes, the invitation and password reset links of the mails included), `/assets/*` the
// built files, `/embed/{agentId}` the embed page of a public Agent with `frame-ancestors 'self' <Allowed URLs>`, and
// `/embed/widget.js` / `/embed/bubble.js` the scripts a host page loads. Every page carries the strict CSP. None needs
// a credential: the app signs in through the API, the old `/chat/{agentId}` redirects only a person whose session may
// use the Agent, and the embed page asks the policy whether an embed visitor may use the Agent (public, not personal):
// else 403 `Agent is not public`. The Referer of the embed page, when sent, is checked against the Allowed URLs as a
// second line (frame-ancestors is the first: a Referer can be forged or left out).
import { Controller, Get, Header, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryBus } from '@nestjs/cqrs';
import { ApiKeyGuard, Public, type SessionPrincipal } from '#access';
import { ForbiddenError, NotFoundError, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import {
  APP_CSP,
  chatCsp,
  embedCsp,
  FindUsableAgent,
  GetEmbeddableAgent,
  originAllowed,
  type AgentView,
} from '#agents';
import { WebAssets } from './web-assets.js';

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Agent Platform</title></head>
<body><h1>The web app is not built</h1><p>Run <code>npm run build</code>.</p></body></html>`;

const plainPage = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
};

const ASSET = /^[A-Za-z0-9._-]{1,200}$/;

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
  '<path d="M9 24l7-16 7 16M12 18h8" stroke="white" stroke-width="3" fill="none" stroke-linecap="round" ' +
  'stroke-linejoin="round"/></svg>';

@Public()
@Controller()
export class WebController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(WebAssets) private readonly assets: WebAssets,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(ApiKeyGuard) private readonly guard: ApiKeyGuard,
  ) {}

  private page(reply: FastifyReply, file: string, csp: string, status = 200): void {
    const html = this.assets.get(file);
    void reply
      .status(html ? status : 503)
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(html?.body ?? NOT_BUILT);
  }

  /**
   * The app's page with its CSP: App views framed from the App origin only and the Agent's embed preview from the
   * instance's `/embed/` path (`frame-src`), images from the instance's content routes only (`img-src`); the instance
   * at the origin the browser sees: PUBLIC_URL, else the Host it sent.
   */
  private appPage(request: FastifyRequest, reply: FastifyReply): void {
    this.page(reply, '/index.html', chatCsp(this.config.apps.appOrigin, this.instanceOrigin(request)));
  }

  /** The instance's origin as the browser sees it: PUBLIC_URL's, else the Host it sent. */
  private instanceOrigin(request: FastifyRequest): string {
    return this.config.people.publicUrlSet
      ? originOf(this.config.people.publicUrl)
      : `${request.protocol}://${request.headers.host ?? ''}`;
  }

  /** The app's routes, the links of the invitation and password reset mails among them (the token is the key). */
  @Get([
    '/',
    'sign-in',
    'memories',
    'developer',
    'usage',
    'admin',
    'apps',
    'operations',
    'audit',
    'replay',
    'knowledge',
    'profile',
    'spaces/new',
    'invitations/accept',
    'password-reset',
  ])
  app(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.appPage(request, reply);
  }

  /** The chat: it frames its Agent's App views. */
  @Get('space/:spaceId/agent/:agentId')
  chat(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.appPage(request, reply);
  }

  /**
   * The old chat route: a real redirect (302, not 308: the target depends on who asks and on the Space the Agent is in
   * now, so no browser or proxy may keep it) to the Agent's Space route for a person whose session may use the Agent;
   * anyone else gets the app's page as every route does (it signs in or says Not found), which names no Space. The
   * conversation asked for (`?c=`) and the message in it (`?m=`) are kept.
   */
  @Get('chat/:agentId')
  async oldChat(
    @Param('agentId') agentId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const person = await this.guard.sessionUser(request);
    const agent = person ? await this.usableAgent(agentId, person) : null;
    if (!agent) {
      void reply.header('vary', 'cookie');
      this.appPage(request, reply);
      return;
    }
    // The conversation asked for (`?c=`) and the answer in it (`?m=`) come along: a link to an answer names both.
    const asked = request.query as { c?: unknown; m?: unknown };
    const kept = new URLSearchParams();
    if (typeof asked.c === 'string') kept.set('c', asked.c);
    if (typeof asked.c === 'string' && typeof asked.m === 'string') kept.set('m', asked.m);
    const query = kept.size ? `?${kept.toString()}` : '';
    void reply
      .status(302)
      .header(
        'location',
        `/space/${encodeURIComponent(agent.spaceId ?? 'personal')}/agent/${encodeURIComponent(agent.id)}${query}`,
      )
      .header('cache-control', 'no-store')
      .header('vary', 'cookie')
      .send();
  }

  /** The Agent if the signed-in person may use it (the policy's `agent.use`), else null: no such Agent or no right. */
  private async usableAgent(
    agentId: string,
    person: { userId: string; isAdmin: boolean },
  ): Promise<AgentView | null> {
    if (agentId.length > 128) return null;
    const principal: SessionPrincipal = { kind: 'session', userId: person.userId, isAdmin: person.isAdmin };
    return this.queries.execute(new FindUsableAgent(agentId, principal));
  }

  /** A Space's page, its members and roles, and its prompt library. */
  @Get(['space/:spaceId/settings', 'space/:spaceId/members', 'space/:spaceId/prompts'])
  spacePages(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.appPage(request, reply);
  }

  /** An Agent's settings (framing its own embed page as a preview when it is public), and its history. */
  @Get(['agent/:agentId/settings', 'agent/:agentId/history'])
  agentSettings(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.appPage(request, reply);
  }

  @Get('assets/:asset')
  asset(@Param('asset') asset: string, @Res() reply: FastifyReply): void {
    const file = ASSET.test(asset) ? this.assets.get(`/assets/${asset}`) : undefined;
    if (!file) {
      void reply.status(404).type('text/plain; charset=utf-8').send('not found');
      return;
    }
    void reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type(file.type)
      .send(file.body);
  }

  /** The pages' icon, at the one path their CSP's `img-src` names for it (no request for /favicon.ico, a 404). */
  @Get('favicon.svg')
  @Header('cache-control', 'public, max-age=86400')
  favicon(@Res() reply: FastifyReply): void {
    void reply.header('x-content-type-options', 'nosniff').type('image/svg+xml').send(FAVICON);
  }

  @Get('embed/widget.js')
  @Header('cache-control', 'public, max-age=300')
  widget(@Res() reply: FastifyReply): void {
    this.script(reply, '/embed/widget.js');
  }

  @Get('embed/bubble.js')
  @Header('cache-control', 'public, max-age=300')
  bubble(@Res() reply: FastifyReply): void {
    this.script(reply, '/embed/bubble.js');
  }

  private script(reply: FastifyReply, path: string): void {
    const file = this.assets.get(path);
    void reply
      .status(file ? 200 : 503)
      .header('x-content-type-options', 'nosniff')
      // Loaded by other sites' pages.
      .header('cross-origin-resource-policy', 'cross-origin')
      .type('application/javascript; charset=utf-8')
      .send(file?.body ?? '');
  }

  @Get('embed/:agentId')
  async embed(@Param('agentId') agentId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const refuse = (status: number, title: string, text: string) =>
      void reply
        .status(status)
        .header('content-security-policy', APP_CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(plainPage(title, text));
    const notFound = () => refuse(404, 'Not found', 'There is no such Agent.');
    if (agentId.length > 128) return notFound();
    let agent: AgentView;
    try {
      agent = await this.queries.execute(new GetEmbeddableAgent(agentId));
    } catch (error) {
      if (error instanceof NotFoundError) return notFound();
      if (error instanceof ForbiddenError) return refuse(403, 'Agent is not public', 'Agent is not public');
      throw error;
    }
    const self = `${request.protocol}://${request.headers.host ?? ''}`;
    const referer = request.headers.referer;
    const from = referer ? originOf(referer) : null;
    if (from !== null && !originAllowed(from, agent.allowedUrls ?? [], self))
      return refuse(403, 'Not allowed here', 'This site may not embed this Agent.');
    this.page(reply, '/embed.html', embedCsp(agent.allowedUrls ?? [], this.instanceOrigin(request)));
  }
}
