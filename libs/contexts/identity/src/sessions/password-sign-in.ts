// AUTH_PASSWORD_SIGN_IN=false: single sign-on replaces the password fields (signing in, accepting an invitation,
// resetting a password answer 403 `password_sign_in_disabled`).
import { forbidden } from '#access';
import { type PlatformConfig } from '#kernel';

export const assertPasswordSignIn = (config: PlatformConfig): void => {
  if (!config.people.passwordSignIn)
    throw forbidden(
      'password_sign_in_disabled',
      'this instance signs people in by single sign-on only (GET /api/v1/core/auth/providers)',
    );
};
