// Which provider serves a model: the offline provider for `provider: offline`, the OpenAI-compatible one (through the
// official SDK, with the registry's URL and key) for every other upstream.
import type { ModelConfig } from './model.js';
import type { ModelRegistry } from './model-registry.js';
import type { ModelProvider } from './provider.port.js';
import { OFFLINE_PROVIDER, OfflineProvider } from './offline/offline-provider.js';
import { OpenAiCompatibleProvider } from './openai/openai-compatible.provider.js';

export class ModelProviders {
  private readonly offline = new OfflineProvider();
  private readonly upstream: OpenAiCompatibleProvider;

  constructor(registry: ModelRegistry) {
    this.upstream = new OpenAiCompatibleProvider(registry);
  }

  /** Closes the upstream connection pools (Nest calls it on shutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.upstream.close();
  }

  for(model: ModelConfig): ModelProvider {
    return model.provider === OFFLINE_PROVIDER ? this.offline : this.upstream;
  }
}
