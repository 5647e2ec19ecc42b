// The identity and access context: users, API keys, the admin bootstrap and the API-key guard on every route.
import { Global, Module } from '@nestjs/common';
import { AdminBootstrap } from './admin-bootstrap.js';
import { ChangeApiKeyController } from './commands/change-api-key/change-api-key.controller.js';
import { ChangeApiKeyHandler } from './commands/change-api-key/change-api-key.command.js';
import { IssueApiKeyController } from './commands/issue-api-key/issue-api-key.controller.js';
import { IssueApiKeyHandler } from './commands/issue-api-key/issue-api-key.command.js';
import { RegisterUserHandler } from './commands/register-user/register-user.command.js';
import { RevokeApiKeyController } from './commands/revoke-api-key/revoke-api-key.controller.js';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.command.js';
import { Credentials } from '#access';
import { IdentityCredentials } from './sessions/identity-credentials.js';
import { AcceptInvitationController } from './commands/accept-invitation/accept-invitation.controller.js';
import { AcceptInvitationHandler } from './commands/accept-invitation/accept-invitation.command.js';
import { ChangeUserController } from './commands/change-user/change-user.controller.js';
import { ChangeUserRoleHandler } from './commands/change-user/change-user.command.js';
import { InviteUserController } from './commands/invite-user/invite-user.controller.js';
import { InviteUserHandler } from './commands/invite-user/invite-user.command.js';
import { RevokeInvitationController } from './commands/revoke-invitation/revoke-invitation.controller.js';
import { RevokeInvitationHandler } from './commands/revoke-invitation/revoke-invitation.command.js';
import { SetUserActiveController } from './commands/set-user-active/set-user-active.controller.js';
import { SetUserActiveHandler } from './commands/set-user-active/set-user-active.command.js';
import { EmbeddedOutbox, Mailer } from './mail/mail.port.js';
import { SmtpMailer } from './mail/smtp-mailer.js';
import { SessionClock } from './sessions/session-clock.js';
import { SessionUse } from './sessions/session-use.js';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { SignInController } from './commands/sign-in/sign-in.controller.js';
import { SignInHandler } from './commands/sign-in/sign-in.command.js';
import { SignOutController } from './commands/sign-out/sign-out.controller.js';
import { RotateApiKeyController } from './commands/rotate-api-key/rotate-api-key.controller.js';
import { RotateApiKeyHandler } from './commands/rotate-api-key/rotate-api-key.command.js';
import { EndOwnSessionController } from './commands/end-own-session/end-own-session.controller.js';
import { EndOwnSessionHandler } from './commands/end-own-session/end-own-session.command.js';
import { ListOwnSessionsController } from './queries/list-own-sessions/list-own-sessions.controller.js';
import { ListOwnSessionsHandler } from './queries/list-own-sessions/list-own-sessions.query.js';
import { SignOutHandler } from './commands/sign-out/sign-out.command.js';
import { RefreshSessionHandler } from './commands/refresh-session/refresh-session.command.js';
import {
  FinishIdempotentRequestHandler,
  StartIdempotentRequestHandler,
} from './commands/record-idempotent-request/record-idempotent-request.command.js';
import { SignInLimiter } from './sessions/sign-in-limiter.js';
import { ChangeOwnUserController } from './commands/change-own-user/change-own-user.controller.js';
import {
  ChangeOwnPasswordHandler,
  ChangeOwnUserHandler,
} from './commands/change-own-user/change-own-user.command.js';
import { ResetPasswordController } from './commands/reset-password/reset-password.controller.js';
import {
  IssuePasswordResetHandler,
  ResetPasswordHandler,
} from './commands/reset-password/reset-password.command.js';
import { OwnApiKeysController } from './commands/own-api-keys/own-api-keys.controller.js';
import {
  CreateOwnApiKeyHandler,
  RevokeOwnApiKeyHandler,
  RotateOwnApiKeyHandler,
} from './commands/own-api-keys/own-api-keys.command.js';
import { ListInvitationsController } from './queries/list-invitations/list-invitations.controller.js';
import {
  GetInvitationHandler,
  ListInvitationsHandler,
} from './queries/list-invitations/list-invitations.query.js';
import { ListMailOutboxController } from './queries/list-mail-outbox/list-mail-outbox.controller.js';
import { GetApiKeyController } from './queries/get-api-key/get-api-key.controller.js';
import { GetApiKeyHandler } from './queries/get-api-key/get-api-key.query.js';
import { GetCurrentUserController } from './queries/get-current-user/get-current-user.controller.js';
import {
  GetCurrentUserHandler,
  GetUserByIdHandler,
} from './queries/get-current-user/get-current-user.query.js';
import { ListApiKeysController } from './queries/list-api-keys/list-api-keys.controller.js';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.query.js';
import {
  GetOwnApiKeyHandler,
  ListOwnApiKeysHandler,
} from './queries/list-own-api-keys/list-own-api-keys.query.js';
import { ListUsersController } from './queries/list-users/list-users.controller.js';
import { ListUsersHandler } from './queries/list-users/list-users.query.js';
import { SignInWithOidcController } from './commands/sign-in-with-oidc/sign-in-with-oidc.controller.js';
import {
  RecordOidcFailureHandler,
  SignInWithOidcHandler,
} from './commands/sign-in-with-oidc/sign-in-with-oidc.command.js';
import { LinkIdentityController } from './commands/link-identity/link-identity.controller.js';
import {
  LinkIdentityHandler,
  UnlinkIdentityHandler,
} from './commands/link-identity/link-identity.command.js';
import { ListAuthProvidersController } from './queries/list-auth-providers/list-auth-providers.controller.js';
import {
  ListAuthProvidersHandler,
  ListIdentitiesHandler,
} from './queries/list-auth-providers/list-auth-providers.query.js';
import { OidcSignIn } from './oidc/oidc-sign-in.js';
import { ApiKeyResolver } from './api-key-resolver.js';

export const IDENTITY_CONTROLLERS = [
  ListApiKeysController,
  GetApiKeyController,
  IssueApiKeyController,
  ChangeApiKeyController,
  RevokeApiKeyController,
  ListUsersController,
  GetCurrentUserController,
  ChangeUserController,
  SetUserActiveController,
  InviteUserController,
  ListInvitationsController,
  RevokeInvitationController,
  AcceptInvitationController,
  ListMailOutboxController,
  SignInController,
  SignOutController,
  EndOwnSessionController,
  RotateApiKeyController,
  ListOwnSessionsController,
  OwnApiKeysController,
  ResetPasswordController,
  ChangeOwnUserController,
  ListAuthProvidersController,
  SignInWithOidcController,
  LinkIdentityController,
];

export const IDENTITY_COMMAND_HANDLERS = [
  RegisterUserHandler,
  IssueApiKeyHandler,
  ChangeApiKeyHandler,
  RevokeApiKeyHandler,
  InviteUserHandler,
  RevokeInvitationHandler,
  AcceptInvitationHandler,
  ChangeUserRoleHandler,
  SetUserActiveHandler,
  SignInHandler,
  SignOutHandler,
  EndOwnSessionHandler,
  RotateApiKeyHandler,
  RefreshSessionHandler,
  StartIdempotentRequestHandler,
  FinishIdempotentRequestHandler,
  CreateOwnApiKeyHandler,
  RevokeOwnApiKeyHandler,
  RotateOwnApiKeyHandler,
  IssuePasswordResetHandler,
  ResetPasswordHandler,
  ChangeOwnUserHandler,
  ChangeOwnPasswordHandler,
  SignInWithOidcHandler,
  RecordOidcFailureHandler,
  LinkIdentityHandler,
  UnlinkIdentityHandler,
];

export const IDENTITY_QUERY_HANDLERS = [
  ListApiKeysHandler,
  ListOwnApiKeysHandler,
  GetOwnApiKeyHandler,
  GetApiKeyHandler,
  ListUsersHandler,
  GetCurrentUserHandler,
  GetUserByIdHandler,
  ListInvitationsHandler,
  GetInvitationHandler,
  ListAuthProvidersHandler,
  ListIdentitiesHandler,
  ListOwnSessionsHandler,
];

// Global: access's guard asks the Credentials port this module provides.
@Global()
@Module({
  controllers: IDENTITY_CONTROLLERS,
  providers: [
    ...IDENTITY_COMMAND_HANDLERS,
    ...IDENTITY_QUERY_HANDLERS,
    AdminBootstrap,
    ApiKeyResolver,
    EmbeddedOutbox,
    SignInLimiter,
    OidcSignIn,
    SessionClock,
    SessionUse,
    SmtpMailer,
    {
      provide: Mailer,
      inject: [PLATFORM_CONFIG, EmbeddedOutbox, SmtpMailer],
      useFactory: (config: PlatformConfig, outbox: EmbeddedOutbox, smtp: SmtpMailer) =>
        config.mail.url ? smtp : outbox,
    },
    { provide: Credentials, useClass: IdentityCredentials },
  ],
  exports: [AdminBootstrap, Mailer, SessionClock, Credentials],
})
export class IdentityModule {}
