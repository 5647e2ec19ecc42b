import { startFakeGoogle } from '#testing/fake-vendors/google';
import { ValidationError } from '#kernel';
import { vendorProviderContract } from '../native/vendor-provider.contract.js';
import { GoogleProvider } from './google.provider.js';

const signal = () => new AbortController().signal;

vendorProviderContract(
  {
    type: 'google',
    start: startFakeGoogle,
    provider: (registry) => new GoogleProvider(registry),
    chatModelId: 'gemini-2.5-flash',
    embeddingModelId: 'gemini-embedding-001',
    failureStatus: { rate_limit: 429, overloaded: 503, context_length: 400, bad_request: 400, auth: 400 },
    vendorWords: /quota|overloaded|token count|API key|oneof/,
    answers: (call) => call.id,
  },
  (subject) => {
    it('sends the key in x-goog-api-key, never in the URL', async () => {
      const { provider, registry, fake, ask, key } = subject();
      await provider.chat(registry.get('chat')!, ask(), signal());
      expect(fake.requests.at(-1)!.headers['x-goog-api-key']).toBe(key);
    });

    it('reports cached tokens as part of the input, whole and streamed', async () => {
      const { provider, registry, fake, ask, streamed } = subject();
      fake.script({ usage: { input: 1000, output: 20, cacheRead: 800 } });
      const usage = { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 20 };
      expect((await provider.chat(registry.get('chat')!, ask(), signal())).usage).toEqual(usage);
      expect((await streamed(ask())).at(-1)!.usage).toEqual(usage);
    });

    it('waits as long as a 429 says in its RetryInfo', async () => {
      const { provider, registry, fake, ask } = subject();
      fake.script({ failure: 'rate_limit', retryAfterSeconds: 9 });
      await expect(provider.chat(registry.get('chat')!, ask(), signal())).rejects.toMatchObject({
        retryAfterMs: 9000,
      });
    });

    it('refuses an image link without a media type before calling Gemini', async () => {
      const { provider, registry, fake, ask } = subject();
      const before = fake.requests.length;
      const image = { type: 'image_url' as const, image_url: { url: 'https://x.test/cat' } };
      await expect(
        provider.chat(
          registry.get('chat')!,
          ask({ messages: [{ role: 'user', content: [image] }] }),
          signal(),
        ),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(fake.requests.length).toBe(before);
    });
  },
);
