// GET /auth/providers (public): the sign-in choices; GET /me/identities: the providers linked to one's user.
import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, Public, type Caller } from '#access';
import {
  AuthProvidersDto,
  IdentitiesDto,
  ListAuthProviders,
  ListIdentities,
} from './list-auth-providers.query.js';

@Controller('api/v1/core')
export class ListAuthProvidersController {
  constructor(private readonly queries: QueryBus) {}

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Sign-in',
    summary: 'The sign-in choices: single sign-on providers, and whether passwords are accepted',
    response: { status: 200, schema: AuthProvidersDto, description: 'Providers of AUTH_PROVIDERS_FILE' },
  })
  @Get('auth/providers')
  providers() {
    return this.queries.execute(new ListAuthProviders());
  }

  @ApiRoute({
    tag: 'Sign-in',
    summary: "The providers linked to the caller's user",
    response: { status: 200, schema: IdentitiesDto, description: 'Linked identities' },
  })
  @Get('me/identities')
  identities(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListIdentities(caller));
  }
}
