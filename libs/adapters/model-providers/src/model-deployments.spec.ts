import type { DeploymentConfig } from './model.js';
import { ModelRegistry, ModelsFileError } from './model-registry.js';

const config = {
  hostingRegion: 'eu-central-1',
  upstreamTimeoutMs: 30_000,
  defaultChatModelOverride: undefined,
  secret: (name: string) => ({ A_KEY: 'sk-a', B_KEY: 'sk-b' })[name],
};

const providers = {
  a: { baseUrl: 'https://a.example/v1', apiKeyEnv: 'A_KEY' },
  b: { baseUrl: 'https://b.example/v1', apiKeyEnv: 'B_KEY', timeoutMs: 5_000 },
};

const build = (models: unknown[]) => ModelRegistry.build({ providers, models }, config);

describe('model deployments and fallbacks', () => {
  it('builds each deployment from its entry and provider, its own key; the key is as trusted as its least', () => {
    const registry = build([
      {
        key: 'gpt',
        provider: 'a',
        modelId: 'gpt-4o',
        kind: 'chat',
        region: 'eu-central-1',
        deployments: [
          { name: 'eu', weight: 3 },
          { provider: 'b', modelId: 'gpt-4o-2024', region: 'us-east-1', weight: 1 },
        ],
      },
    ]);
    const model = registry.get('gpt')!;
    const [eu, us] = model.deployments as DeploymentConfig[];
    expect(eu).toMatchObject({
      deploymentId: 'gpt/eu',
      key: 'gpt',
      baseUrl: 'https://a.example/v1',
      modelId: 'gpt-4o',
      weight: 3,
      // In the instance's own hosting region: secure.
      securityTier: 'secure',
    });
    expect(us).toMatchObject({
      deploymentId: 'gpt/2',
      baseUrl: 'https://b.example/v1',
      modelId: 'gpt-4o-2024',
      timeoutMs: 5_000,
      securityTier: 'us-cloud',
    });
    expect(model.securityTier).toBe('us-cloud');
    expect(registry.upstreamKey(eu!)).toBe('sk-a');
    expect(registry.upstreamKey(us!)).toBe('sk-b');
    expect(registry.infos(['chat']).find((info) => info.key === 'gpt')).not.toHaveProperty('deployments');
  });

  it.each([
    [
      [{ key: 'x', provider: 'a', kind: 'chat', fallbacks: ['nope'] }],
      "fallback 'nope' is not a configured model",
    ],
    [[{ key: 'x', provider: 'a', kind: 'chat', fallbacks: ['x'] }], 'cannot fall back to itself'],
    [
      [
        { key: 'x', provider: 'a', kind: 'chat', fallbacks: ['e'] },
        { key: 'e', provider: 'a', kind: 'embedding' },
      ],
      "fallback 'e' is a embedding model",
    ],
    [
      [
        { key: 'x', provider: 'a', kind: 'chat', securityTier: 'secure', fallbacks: ['cloud'] },
        { key: 'cloud', provider: 'b', kind: 'chat', securityTier: 'us-cloud' },
      ],
      "'x' (secure) cannot fall back to 'cloud' (us-cloud)",
    ],
  ])('refuses a fallback that is not allowed (%#)', (models, message) => {
    expect(() => build(models)).toThrow(ModelsFileError);
    expect(() => build(models)).toThrow(message);
  });

  it('lets a model fall back to a less trusted one only when its entry says so', () => {
    const registry = build([
      {
        key: 'x',
        provider: 'a',
        kind: 'chat',
        securityTier: 'secure',
        fallbacks: ['cloud'],
        fallbackToLowerTier: true,
      },
      { key: 'cloud', provider: 'b', kind: 'chat', securityTier: 'us-cloud' },
    ]);
    expect(registry.get('x')!.fallbacks).toEqual(['cloud']);
  });
});
