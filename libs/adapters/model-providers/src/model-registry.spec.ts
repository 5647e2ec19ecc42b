import { ModelRegistry, ModelsFileError } from './model-registry.js';

const config = (secrets: Record<string, string> = {}, override?: string) => ({
  hostingRegion: 'eu-central-1',
  upstreamTimeoutMs: 30_000,
  defaultChatModelOverride: override,
  secret: (name: string) => secrets[name],
});

const file = {
  providers: { openai: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' } },
  defaults: { chat: 'gpt-mini' },
  models: [
    {
      key: 'gpt-mini',
      modelId: 'gpt-4o-mini',
      provider: 'openai',
      kind: 'chat',
      region: 'us-east-1',
      tags: ['fast', 'eu'],
      locationLabel: 'EU',
      pricing: { input: 0.15, output: 0.6 },
    },
    {
      key: 'mistral-small',
      provider: 'mistral',
      baseUrl: 'https://api.mistral.ai/v1',
      apiKeyEnv: 'MISTRAL_KEY',
      kind: 'chat',
      region: 'europe-west4',
      pricing: { input: 0.2, output: 0.6 },
      contextWindow: 32_000,
    },
    {
      key: 'house',
      provider: 'vllm',
      baseUrl: 'http://127.0.0.1:8000/v1',
      kind: 'chat',
      region: 'eu-central-1',
    },
    {
      key: 'pinned',
      provider: 'vllm',
      baseUrl: 'http://127.0.0.1:8000/v1',
      kind: 'chat',
      region: 'us-east-1',
      securityTier: 'secure',
    },
  ],
};

describe('ModelRegistry', () => {
  it('always has the offline models, secure, free, with the instance defaults', () => {
    const registry = ModelRegistry.build({}, config());
    expect(registry.list().map((m) => m.key)).toEqual([
      'offline-chat',
      'offline-embed',
      'offline-rerank',
      'offline-image',
      'offline-speech',
      'offline-transcribe',
    ]);
    expect(registry.get('offline-chat')).toMatchObject({
      provider: 'offline',
      securityTier: 'secure',
      pricing: { input: 0, output: 0 },
      contextWindow: 8192,
    });
    expect(registry.defaultModel('chat')?.key).toBe('offline-chat');
    expect(registry.defaultModel('embedding')?.key).toBe('offline-embed');
    expect(registry.reranker().key).toBe('offline-rerank');
    expect(registry.defaultModel('speech')?.key).toBe('offline-speech');
    expect(registry.defaultModel('transcription')?.key).toBe('offline-transcribe');
  });

  it('reads models, inheriting provider settings, inferring tiers from regions only', () => {
    const registry = ModelRegistry.build(file, config({ OPENAI_API_KEY: 'sk-secret' }));
    expect(registry.get('gpt-mini')).toMatchObject({
      modelId: 'gpt-4o-mini',
      baseUrl: 'https://api.openai.com/v1',
      securityTier: 'us-cloud',
      locationLabel: 'EU',
    });
    expect(registry.get('mistral-small')).toMatchObject({
      modelId: 'mistral-small',
      securityTier: 'eu-hosted',
    });
    expect(registry.get('house')?.securityTier).toBe('secure');
    expect(registry.get('pinned')?.securityTier).toBe('secure');
    expect(registry.defaultModel('chat')?.key).toBe('gpt-mini');
    expect(registry.upstreamKey(registry.get('gpt-mini')!)).toBe('sk-secret');
    expect(registry.missingKeys).toEqual([{ model: 'mistral-small', variable: 'MISTRAL_KEY' }]);
    expect(JSON.stringify(registry.infos())).not.toContain('sk-secret');
    expect(registry.infos(['chat']).every((m) => m.kind === 'chat')).toBe(true);
  });

  it("gives every model a context window: the file's, else 128000 for upstream chat models, else 8192", () => {
    const registry = ModelRegistry.build(
      {
        ...file,
        models: [
          ...file.models,
          { key: 'emb', provider: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1', kind: 'embedding' },
          { key: 'local-chat', provider: 'offline', kind: 'chat' },
        ],
      },
      config(),
    );
    const windows = Object.fromEntries(registry.infos().map((m) => [m.key, m.contextWindow]));
    expect(windows).toEqual({
      'gpt-mini': 128_000,
      'mistral-small': 32_000,
      house: 128_000,
      pinned: 128_000,
      emb: 8192,
      'local-chat': 8192,
      'offline-chat': 8192,
      'offline-embed': 8192,
      'offline-rerank': 8192,
      'offline-image': 8192,
      'offline-speech': 8192,
      'offline-transcribe': 8192,
    });
  });

  it('refuses inconsistent files with a message naming the problem', () => {
    const bad: [unknown, RegExp][] = [
      [{ models: [{ key: 'x', provider: 'openai', kind: 'chat' }] }, /needs a baseUrl/],
      [{ defaults: { chat: 'nope' } }, /default chat model 'nope'/],
      [{ defaults: { chat: 'offline-embed' } }, /is an embedding model/],
      [{ reranker: 'offline-chat' }, /reranker/],
      [
        {
          models: [
            { key: 'a', provider: 'offline', kind: 'chat' },
            { key: 'a', provider: 'offline', kind: 'chat' },
          ],
        },
        /twice/,
      ],
      [{ models: [{ key: 'a', provider: 'offline', kind: 'laser' }] }, /models\.0\.kind/],
      [
        { models: [{ key: 'a', provider: 'offline', kind: 'chat', contextWindow: 0 }] },
        /models\.0\.contextWindow/,
      ],
      [
        { models: [{ key: 'a', provider: 'offline', kind: 'chat', contextWindow: 1000.5 }] },
        /models\.0\.contextWindow/,
      ],
      [{ surprise: 1 }, /surprise/],
    ];
    for (const [content, message] of bad)
      expect(() => ModelRegistry.build(content, config())).toThrow(message);
    expect(() => ModelRegistry.build({ defaults: { chat: 'nope' } }, config())).toThrow(ModelsFileError);
  });

  it('lets DEFAULT_CHAT_MODEL override the file', () => {
    expect(ModelRegistry.build(file, config({}, 'house')).defaultModel('chat')?.key).toBe('house');
  });
});

describe('config/models.example.yaml', () => {
  it('is a valid models file', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    const registry = ModelRegistry.build(
      parse(readFileSync('config/models.example.yaml', 'utf8')),
      config({ OPENAI_API_KEY: 'k' }),
    );
    expect(registry.defaultModel('chat')?.key).toBe('mistral-small');
    expect(registry.get('house-llama')?.securityTier).toBe('secure');
    expect(registry.get('mistral-small')?.securityTier).toBe('eu-hosted');
    expect(registry.get('gpt-4o-mini')?.securityTier).toBe('us-cloud');
    expect(registry.get('mistral-small')?.contextWindow).toBe(32_000);
    expect(registry.get('mistral-small')?.fallbacks).toEqual(['house-llama']);
    expect(registry.get('gpt-4.1')?.deployments?.map((deployment) => deployment.deploymentId)).toEqual([
      'gpt-4.1/openai',
      'gpt-4.1/azure-eu',
    ]);
  });

  it('marks an upstream chat model as speaking the Responses API, and refuses the flag elsewhere', () => {
    const native = ModelRegistry.build(
      {
        models: [
          {
            key: 'gpt-r',
            provider: 'openai',
            baseUrl: 'https://api.openai.com/v1',
            kind: 'chat',
            api: 'responses',
          },
          { key: 'gpt-c', provider: 'openai', baseUrl: 'https://api.openai.com/v1', kind: 'chat' },
        ],
      },
      config(),
    );
    expect(native.get('gpt-r')!.api).toBe('responses');
    expect(native.get('gpt-c')!.api).toBeUndefined();
    // How a model is reached is not part of its public description.
    expect(native.infos().find((info) => info.key === 'gpt-r')).not.toHaveProperty('api');
    for (const entry of [
      { key: 'off', provider: 'offline', kind: 'chat', api: 'responses' },
      {
        key: 'emb',
        provider: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        kind: 'embedding',
        api: 'responses',
      },
    ])
      expect(() => ModelRegistry.build({ models: [entry] }, config())).toThrow(/api 'responses'/);
    expect(() =>
      ModelRegistry.build(
        { models: [{ key: 'x', provider: 'offline', kind: 'chat', api: 'soap' }] },
        config(),
      ),
    ).toThrow(ModelsFileError);
  });

  it('reads the AWS variables for Bedrock once, and lists each Bedrock upstream without them as missing', () => {
    const bedrock = {
      providers: {
        aws: { type: 'bedrock', awsRegion: 'eu-central-1' },
        awskey: { type: 'bedrock', awsRegion: 'us-east-1', apiKeyEnv: 'BEDROCK_KEY' },
      },
      models: [
        {
          key: 'claude',
          provider: 'aws',
          kind: 'chat',
          deployments: [{ name: 'eu' }, { name: 'us', provider: 'awskey' }],
        },
      ],
    };
    const unset = ModelRegistry.build(bedrock, config({ AWS_ACCESS_KEY_ID: 'AKIA1' }));
    expect(unset.missingKeys).toEqual([
      { model: 'claude/us', variable: 'BEDROCK_KEY' },
      { model: 'claude/eu', variable: 'AWS_SECRET_ACCESS_KEY' },
    ]);
    expect(unset.awsCredentials(unset.get('claude')!)).toBeUndefined();
    const set = ModelRegistry.build(
      bedrock,
      config({
        AWS_ACCESS_KEY_ID: 'AKIA1',
        AWS_SECRET_ACCESS_KEY: 's3cret',
        AWS_SESSION_TOKEN: 'tok',
        BEDROCK_KEY: 'k',
      }),
    );
    expect(set.missingKeys).toEqual([]);
    expect(set.awsCredentials(set.get('claude')!)).toEqual({
      accessKeyId: 'AKIA1',
      secretAccessKey: 's3cret',
      sessionToken: 'tok',
    });
    expect(set.get('claude')!.deployments!.map((deployment) => deployment.baseUrl)).toEqual([
      'https://bedrock-runtime.eu-central-1.amazonaws.com',
      'https://bedrock-runtime.us-east-1.amazonaws.com',
    ]);
  });
});
