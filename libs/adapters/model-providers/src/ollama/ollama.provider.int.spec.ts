import { startFakeOllama } from '#testing/fake-vendors/ollama';
import { vendorProviderContract } from '../native/vendor-provider.contract.js';
import { OllamaProvider } from './ollama.provider.js';

vendorProviderContract(
  {
    type: 'ollama',
    start: startFakeOllama,
    provider: (registry) => new OllamaProvider(registry),
    chatModelId: 'llama3.2',
    embeddingModelId: 'nomic-embed-text',
    failureStatus: { rate_limit: 429, overloaded: 503, context_length: 400, bad_request: 404, auth: 401 },
    vendorWords: /busy|not found|context length|unauthorized|too many/,
    // Ollama pairs a tool result with its call by the function's name (`tool_name`).
    answers: (call) => call.name,
  },
  (subject) => {
    it('sends the key as a bearer token', async () => {
      const { provider, registry, fake, ask, key } = subject();
      await provider.chat(registry.get('chat')!, ask(), new AbortController().signal);
      expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);
    });
  },
);
