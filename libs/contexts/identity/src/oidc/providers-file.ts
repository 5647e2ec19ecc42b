// The OpenID providers an instance signs people in with, from the YAML file named by AUTH_PROVIDERS_FILE. `sso`
// providers sign in invited users (and, with `justInTime`, people of `allowedDomains`); `social` providers only sign
// in users who linked them from their session. A client secret is written in the file or named by variable
// (`clientSecretEnv`, read through the configuration); it never appears in an error, a log line or an event.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { lazyModule, type PlatformConfig } from '#kernel';

// yaml is required when AUTH_PROVIDERS_FILE is read, not at start-up.
const yaml = lazyModule<typeof import('yaml')>('yaml');

export type AuthProviderKind = 'sso' | 'social';

export interface AuthProvider {
  readonly id: string;
  readonly name: string;
  readonly kind: AuthProviderKind;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Email domains (lower case) whose people an `sso` provider may sign in without an invitation. */
  readonly allowedDomains: readonly string[];
  /** Just-in-time accounts for `allowedDomains` (off unless set). */
  readonly justInTime: boolean;
  readonly scopes: readonly string[];
}

export class ProvidersFileError extends Error {}

/** Hosts whose issuers may be plain http (a provider on this machine). */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

const Provider = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lower-case letters, digits and dashes (at most 40)'),
    name: z.string().trim().min(1).max(80).optional(),
    kind: z.enum(['sso', 'social']),
    issuer: z.url(),
    clientId: z.string().min(1).max(256),
    clientSecret: z.string().min(1).max(1024).optional(),
    clientSecretEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional(),
    allowedDomains: z
      .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'a domain such as example.com'))
      .max(100)
      .default([]),
    justInTime: z.boolean().default(false),
    scopes: z
      .array(z.string().regex(/^[\x21-\x7e]+$/))
      .max(20)
      .default(['openid', 'email', 'profile']),
  })
  .superRefine((provider, ctx) => {
    if (!provider.clientSecret === !provider.clientSecretEnv)
      ctx.addIssue({ code: 'custom', message: 'give clientSecret or clientSecretEnv (one of them)' });
    if (provider.kind === 'social' && (provider.justInTime || provider.allowedDomains.length > 0))
      ctx.addIssue({
        code: 'custom',
        message: 'a social provider never creates accounts: allowedDomains and justInTime are for sso',
      });
    if (provider.justInTime && provider.allowedDomains.length === 0)
      ctx.addIssue({ code: 'custom', message: 'justInTime needs allowedDomains' });
    const issuer = new URL(provider.issuer);
    if (issuer.protocol !== 'https:' && !LOOPBACK.has(issuer.hostname))
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'an issuer is https (http only on loopback)',
      });
    if (!provider.scopes.includes('openid'))
      ctx.addIssue({ code: 'custom', message: 'scopes must include openid' });
  });

const ProvidersFile = z.strictObject({ providers: z.array(Provider).max(50) });

/** Validates the file's content; every problem is named (never a secret's value). */
export function parseProviders(content: unknown, secret: PlatformConfig['secret']): readonly AuthProvider[] {
  const parsed = ProvidersFile.safeParse(content);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`,
    );
    throw new ProvidersFileError(`invalid providers file:\n  ${problems.join('\n  ')}`);
  }
  const ids = new Set<string>();
  return parsed.data.providers.map((provider) => {
    if (ids.has(provider.id))
      throw new ProvidersFileError(`invalid providers file: provider id '${provider.id}' appears twice`);
    ids.add(provider.id);
    const clientSecret = provider.clientSecret ?? secret(provider.clientSecretEnv!);
    if (!clientSecret)
      throw new ProvidersFileError(
        `provider '${provider.id}': the variable ${provider.clientSecretEnv} (clientSecretEnv) is not set`,
      );
    return {
      id: provider.id,
      name: provider.name ?? provider.id,
      kind: provider.kind,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret,
      allowedDomains: provider.allowedDomains.map((domain) => domain.toLowerCase()),
      justInTime: provider.justInTime,
      scopes: provider.scopes,
    };
  });
}

/** The providers of AUTH_PROVIDERS_FILE (none when it is unset). */
export function loadProviders(config: PlatformConfig): readonly AuthProvider[] {
  const path = config.people.providersFile;
  if (!path) return [];
  let content: unknown;
  try {
    content = yaml().parse(readFileSync(path, 'utf8'));
  } catch (error) {
    // Not the parser's message: it quotes the file's lines, which may hold a client secret.
    const { code, linePos } = error as { code?: string; linePos?: { line: number }[] };
    const where = linePos?.[0] ? ` at line ${linePos[0].line}` : '';
    throw new ProvidersFileError(
      `AUTH_PROVIDERS_FILE ${path}: cannot be read as YAML (${code ?? (error as Error).name}${where})`,
    );
  }
  return parseProviders(content, config.secret);
}
