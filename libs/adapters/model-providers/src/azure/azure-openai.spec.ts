import type { ModelConfig } from '../model.js';
import { AZURE_WIRE, azureReason } from './azure-openai.provider.js';

describe('Azure OpenAI wire', () => {
  it('calls a deployment path with the api-version, the key in api-key', () => {
    const model = { modelId: 'gpt 4o/prod', apiVersion: '2024-10-21' } as ModelConfig;
    expect(AZURE_WIRE.path(model, '/chat/completions')).toBe(
      '/openai/deployments/gpt%204o%2Fprod/chat/completions?api-version=2024-10-21',
    );
    expect(AZURE_WIRE.auth('k')).toEqual({ 'api-key': 'k' });
  });

  it("reads a content-filter refusal as a bad request that says so, and otherwise OpenAI's reasons", () => {
    const filtered = JSON.stringify({
      error: {
        code: 'content_filter',
        message: 'The response was filtered',
        innererror: { code: 'ResponsibleAIPolicyViolation' },
      },
    });
    expect(azureReason(400, filtered, {})).toEqual({
      reason: 'bad_request',
      detail: expect.stringContaining('content filter') as unknown,
    });
    expect(
      azureReason(
        400,
        JSON.stringify({ error: { code: 'context_length_exceeded', message: 'too long' } }),
        {},
      ),
    ).toBe('context_length');
    expect(azureReason(429, '{}', {})).toBeUndefined();
  });
});
