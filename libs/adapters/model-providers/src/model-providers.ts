// Which provider serves a model: the offline provider for `provider: offline`, otherwise the one speaking its
// upstream's wire (`type` in the models file: OpenAI-compatible by default, or a vendor's native API). Each is made on
// first use; their modules are small (request and answer translations over the shared undici client), and what is
// heavy (an SDK, an event-stream codec) they load lazily.
import type { ModelConfig, ProviderType } from './model.js';
import type { ModelRegistry } from './model-registry.js';
import { UpstreamError, type ModelProvider } from './provider.port.js';
import { OFFLINE_PROVIDER, OfflineProvider } from './offline/offline-provider.js';
import { OpenAiCompatibleProvider } from './openai/openai-compatible.provider.js';
import { AnthropicProvider } from './anthropic/anthropic.provider.js';
import { AzureOpenAiProvider } from './azure/azure-openai.provider.js';
import { BedrockProvider } from './bedrock/bedrock.provider.js';
import { GoogleProvider } from './google/google.provider.js';
import { OllamaProvider } from './ollama/ollama.provider.js';

/** A provider that holds connections closes them on shutdown. */
type UpstreamProvider = ModelProvider & { close?(): Promise<void> };

const PROVIDER_TYPES: Partial<Record<ProviderType, (registry: ModelRegistry) => UpstreamProvider>> = {
  openai: (registry) => new OpenAiCompatibleProvider(registry),
  anthropic: (registry) => new AnthropicProvider(registry),
  azure: (registry) => new AzureOpenAiProvider(registry),
  bedrock: (registry) => new BedrockProvider(registry),
  google: (registry) => new GoogleProvider(registry),
  ollama: (registry) => new OllamaProvider(registry),
};

export class ModelProviders {
  private readonly offline = new OfflineProvider();
  private readonly upstreams = new Map<ProviderType, UpstreamProvider>();

  constructor(private readonly registry: ModelRegistry) {}

  /** Closes the upstream connection pools (Nest calls it on shutdown). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((provider) => provider.close?.()));
  }

  for(model: ModelConfig): ModelProvider {
    if (model.provider === OFFLINE_PROVIDER) return this.offline;
    const type = model.providerType ?? 'openai';
    let provider = this.upstreams.get(type);
    if (!provider) {
      const make = PROVIDER_TYPES[type];
      if (!make) throw new UpstreamError('unavailable', `provider type '${type}' is not available`);
      provider = make(this.registry);
      this.upstreams.set(type, provider);
    }
    return provider;
  }
}
