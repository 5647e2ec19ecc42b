// GET /auth/oidc/{providerId}/start and POST /auth/oidc/{providerId}/link: where to go back to afterwards.
import { z } from 'zod';

export const OidcStartQuery = z.strictObject({
  returnTo: z
    .string()
    .max(2000)
    .regex(/^\/(?![/\\])[^\s\\]*$/, 'a path of this instance, such as /settings')
    .optional(),
});

export const OidcCallbackQuery = z
  .looseObject({})
  .describe("The provider's answer (code, state, iss; or error): read by openid-client");

export const LinkIdentityBody = z.strictObject({ returnTo: OidcStartQuery.shape.returnTo });

export const AuthorizationUrlDto = z.object({
  authorizationUrl: z.url().describe("The provider's sign-in page: send the browser there"),
});
