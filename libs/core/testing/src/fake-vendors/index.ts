// The fake vendor upstreams by provider type, and how a models file names each: what the provider matrix
// (test/provider-matrix.e2e.spec.ts) runs every client protocol against.
import type { StartFakeVendor, FakeVendorUpstream } from './vendor-upstream.js';
import { startFakeOpenAi } from './openai.js';
import { startFakeAnthropic } from './anthropic.js';
import { startFakeAzure } from './azure.js';
import {
  FAKE_AWS_ACCESS_KEY_ID,
  FAKE_AWS_REGION,
  FAKE_AWS_SECRET_ACCESS_KEY,
  startFakeBedrock,
} from './bedrock.js';
import { startFakeGoogle } from './google.js';
import { startFakeOllama } from './ollama.js';

export * from './vendor-upstream.js';

export interface FakeVendor {
  readonly start: StartFakeVendor;
  /** The models file's `providers` entry reaching `fake`, its key in the variable `apiKeyEnv`. */
  provider(fake: FakeVendorUpstream, apiKeyEnv: string): Record<string, unknown>;
  /** Extra environment the api needs to reach it (Bedrock's access key id), besides `apiKeyEnv`. */
  readonly env?: Readonly<Record<string, string>>;
}

export const FAKE_VENDORS: Readonly<Record<string, FakeVendor>> = {
  openai: {
    start: startFakeOpenAi,
    provider: (fake, apiKeyEnv) => ({ type: 'openai', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
  anthropic: {
    start: startFakeAnthropic,
    provider: (fake, apiKeyEnv) => ({ type: 'anthropic', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
  // Azure OpenAI: the deployment is the model's `modelId`; the key goes in `api-key`.
  azure: {
    start: startFakeAzure,
    provider: (fake, apiKeyEnv) => ({
      type: 'azure',
      baseUrl: fake.baseUrl,
      apiVersion: '2024-10-21',
      apiKeyEnv,
    }),
  },
  // Bedrock signs with SigV4 from the AWS variables in `env` (the fake checks every signature with that secret), so
  // its entry names no `apiKeyEnv` (which would mean a Bedrock API key, `Authorization: Bearer`: the fake takes the
  // `apiKey` it was started with as one).
  bedrock: {
    start: ({ apiKey }) => startFakeBedrock({ apiKey, secretAccessKey: FAKE_AWS_SECRET_ACCESS_KEY }),
    provider: (fake) => ({ type: 'bedrock', baseUrl: fake.baseUrl, awsRegion: FAKE_AWS_REGION }),
    env: { AWS_ACCESS_KEY_ID: FAKE_AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: FAKE_AWS_SECRET_ACCESS_KEY },
  },
  google: {
    start: startFakeGoogle,
    provider: (fake, apiKeyEnv) => ({ type: 'google', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
  ollama: {
    start: startFakeOllama,
    provider: (fake, apiKeyEnv) => ({ type: 'ollama', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
};
