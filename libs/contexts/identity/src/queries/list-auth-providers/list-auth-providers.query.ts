// The sign-in choices the web app shows (public): the configured providers and whether passwords are accepted; and
// the identities linked to the caller's user (their provider, when and how linked; never a token).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { z } from 'zod';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AskedAtRoute, type Caller } from '#access';
import { OidcSignIn } from '../../oidc/oidc-sign-in.js';
import { IDENTITIES, type IdentityView } from '../../users.read-model.js';

export const AuthProvidersDto = z.object({
  data: z.array(
    z.object({
      id: z.string().describe('Use in /auth/oidc/{id}/start'),
      kind: z.enum(['sso', 'social']),
      name: z.string(),
    }),
  ),
  passwordSignIn: z.boolean().describe('false: single sign-on replaces the password fields'),
});

export const IdentitiesDto = z.object({
  data: z.array(
    z.object({
      providerId: z.string(),
      kind: z.enum(['sso', 'social']).nullable().describe('null: the provider is no longer configured'),
      name: z.string(),
      email: z.string().nullable(),
      via: z.enum(['invitation', 'justInTime', 'session']),
      linkedAt: z.string(),
    }),
  ),
});

@AskedAtRoute('public: the sign-in choices')
export class ListAuthProviders extends Query<z.output<typeof AuthProvidersDto>> {}

@AskedAtRoute("the route row asks user.self: the caller's own identities")
export class ListIdentities extends Query<z.output<typeof IdentitiesDto>> {
  constructor(readonly caller: Caller) {
    super();
  }
}

@QueryHandler(ListAuthProviders)
export class ListAuthProvidersHandler implements IQueryHandler<ListAuthProviders> {
  constructor(
    private readonly oidc: OidcSignIn,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  execute() {
    return Promise.resolve({
      data: this.oidc.list().map(({ id, kind, name }) => ({ id, kind, name })),
      passwordSignIn: this.config.people.passwordSignIn,
    });
  }
}

@QueryHandler(ListIdentities)
export class ListIdentitiesHandler implements IQueryHandler<ListIdentities> {
  constructor(
    private readonly oidc: OidcSignIn,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ caller }: ListIdentities) {
    const page = await this.readStore
      .reader<IdentityView>(IDENTITIES)
      .find({ userId: caller.userId }, { limit: 100 });
    const providers = new Map(this.oidc.list().map((provider) => [provider.id, provider]));
    return {
      data: page.data.map((identity) => ({
        providerId: identity.providerId,
        kind: providers.get(identity.providerId)?.kind ?? null,
        name: providers.get(identity.providerId)?.name ?? identity.providerId,
        email: identity.email,
        via: identity.via as 'invitation' | 'justInTime' | 'session',
        linkedAt: identity.createdAt,
      })),
    };
  }
}
