import { ModelRegistry, ModelsFileError } from './model-registry.js';

const config = {
  hostingRegion: 'eu-central-1',
  upstreamTimeoutMs: 30_000,
  defaultChatModelOverride: undefined,
  secret: (name: string) => ({ ANTHROPIC_API_KEY: 'sk-ant', AZURE_KEY: 'az' })[name],
};
const build = (providers: Record<string, unknown>, models: Record<string, unknown>[]) =>
  ModelRegistry.build({ providers, models }, config);

describe('provider types in the models file', () => {
  it("takes a vendor's public endpoint when the file names none, and the provider's type and settings", () => {
    const registry = build(
      {
        claude: { type: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' },
        aws: { type: 'bedrock', awsRegion: 'eu-central-1' },
        az: {
          type: 'azure',
          baseUrl: 'https://acme.openai.azure.com',
          apiVersion: '2024-10-21',
          apiKeyEnv: 'AZURE_KEY',
        },
      },
      [
        { key: 'sonnet', provider: 'claude', kind: 'chat' },
        { key: 'nova', provider: 'aws', kind: 'chat' },
        { key: 'gpt', provider: 'az', kind: 'chat' },
        { key: 'local', provider: 'house', type: 'ollama', kind: 'embedding' },
      ],
    );
    expect(registry.get('sonnet')).toMatchObject({
      providerType: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
    });
    expect(registry.upstreamKey(registry.get('sonnet')!)).toBe('sk-ant');
    expect(registry.get('nova')).toMatchObject({
      providerType: 'bedrock',
      awsRegion: 'eu-central-1',
      baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
    });
    expect(registry.get('gpt')).toMatchObject({ providerType: 'azure', apiVersion: '2024-10-21' });
    expect(registry.get('local')).toMatchObject({
      providerType: 'ollama',
      baseUrl: 'http://127.0.0.1:11434',
    });
    // How the upstream is reached stays out of the public description.
    const info = registry.infos().find((model) => model.key === 'gpt')!;
    expect(info).not.toHaveProperty('providerType');
    expect(info).not.toHaveProperty('apiVersion');
  });

  it('refuses a type without what it needs, or a kind it does not serve', () => {
    expect(() => build({ aws: { type: 'bedrock' } }, [{ key: 'x', provider: 'aws', kind: 'chat' }])).toThrow(
      /bedrock' needs an awsRegion/,
    );
    expect(() =>
      build({ az: { type: 'azure', baseUrl: 'https://a.openai.azure.com' } }, [
        { key: 'x', provider: 'az', kind: 'chat' },
      ]),
    ).toThrow(/azure' needs an apiVersion/);
    expect(() =>
      build({ c: { type: 'anthropic' } }, [{ key: 'x', provider: 'c', kind: 'embedding' }]),
    ).toThrow(ModelsFileError);
    expect(() => build({ o: { type: 'openai' } }, [{ key: 'x', provider: 'o', kind: 'chat' }])).toThrow(
      /needs a baseUrl/,
    );
    expect(() =>
      build({ c: { type: 'anthropic' } }, [{ key: 'x', provider: 'c', kind: 'chat', api: 'responses' }]),
    ).toThrow(/api 'responses' is for provider type 'openai' only/);
  });

  it("a deployment reaches its own provider's type, or its model's", () => {
    const registry = build(
      {
        claude: { type: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' },
        aws: { type: 'bedrock', awsRegion: 'us-east-1' },
      },
      [
        {
          key: 'sonnet',
          provider: 'claude',
          kind: 'chat',
          deployments: [
            { name: 'direct' },
            { name: 'aws', provider: 'aws', modelId: 'anthropic.claude-sonnet' },
          ],
        },
      ],
    );
    expect(registry.get('sonnet')!.deployments).toEqual([
      expect.objectContaining({ deploymentId: 'sonnet/direct', providerType: 'anthropic' }),
      expect.objectContaining({
        deploymentId: 'sonnet/aws',
        providerType: 'bedrock',
        awsRegion: 'us-east-1',
      }),
    ]);
  });
});
