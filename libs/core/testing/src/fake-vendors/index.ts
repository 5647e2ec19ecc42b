// The fake vendor upstreams by provider type, and how a models file names each: what the provider matrix
// (test/provider-matrix.e2e.spec.ts) runs every client protocol against.
import type { StartFakeVendor, FakeVendorUpstream } from './vendor-upstream.js';
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
  google: {
    start: startFakeGoogle,
    provider: (fake, apiKeyEnv) => ({ type: 'google', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
  ollama: {
    start: startFakeOllama,
    provider: (fake, apiKeyEnv) => ({ type: 'ollama', baseUrl: fake.baseUrl, apiKeyEnv }),
  },
};
