import { parseProviders, ProvidersFileError } from './providers-file.js';
import { safeReturnTo } from './oidc-sign-in.js';

const secret = (name: string) => (name === 'CORP_SECRET' ? 'from-the-environment' : undefined);
const corp = {
  id: 'corp',
  kind: 'sso',
  issuer: 'https://login.example.com',
  clientId: 'platform',
  clientSecretEnv: 'CORP_SECRET',
};

const problems = (content: unknown) => {
  try {
    parseProviders(content, secret);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(ProvidersFileError);
    return (error as Error).message;
  }
};

describe('the providers file', () => {
  it('reads sso and social providers, with defaults, and the secret from its variable', () => {
    const [sso, social] = parseProviders(
      {
        providers: [
          { ...corp, allowedDomains: ['Example.com'], justInTime: true },
          {
            id: 'social',
            name: 'Social',
            kind: 'social',
            issuer: 'http://127.0.0.1:9000',
            clientId: 'p',
            clientSecret: 's',
          },
        ],
      },
      secret,
    );
    expect(sso).toMatchObject({
      id: 'corp',
      name: 'corp',
      clientSecret: 'from-the-environment',
      allowedDomains: ['example.com'],
      justInTime: true,
      scopes: ['openid', 'email', 'profile'],
    });
    expect(social).toMatchObject({ kind: 'social', name: 'Social', justInTime: false, allowedDomains: [] });
  });

  it('names every problem, never a secret', () => {
    const message = problems({
      providers: [
        { ...corp, clientSecret: 'sekrit-canary-1', issuer: 'http://login.example.com' },
        { ...corp, id: 'Bad Id', kind: 'social', allowedDomains: ['example.com'] },
        { ...corp, id: 'jit', justInTime: true },
      ],
    });
    expect(message).toContain('providers.0.issuer: an issuer is https (http only on loopback)');
    expect(message).toContain('give clientSecret or clientSecretEnv (one of them)');
    expect(message).toContain('providers.1.id');
    expect(message).toContain('a social provider never creates accounts');
    expect(message).toContain('justInTime needs allowedDomains');
    expect(message).not.toContain('sekrit-canary-1');
    expect(problems({ providers: [corp, corp] })).toContain("provider id 'corp' appears twice");
    expect(problems({ providers: [{ ...corp, clientSecretEnv: 'UNSET' }] })).toContain('UNSET');
    expect(problems({ providers: [{ ...corp, scopes: ['email'] }] })).toContain('scopes must include openid');
    expect(problems(null)).toContain('(file)');
  });
});

describe('returnTo', () => {
  it('keeps a path of this instance, and sends anything else to /', () => {
    expect(safeReturnTo('/chat/abc?x=1')).toBe('/chat/abc?x=1');
    for (const other of ['//evil.example', '/\\evil.example', 'https://evil.example', 'chat', '/a b', 42])
      expect(safeReturnTo(other)).toBe('/');
  });
});
