import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { BedrockSigner } from './sigv4.js';

describe('BedrockSigner (SigV4 as the AWS SDK signs)', () => {
  const at = new Date('2026-11-26T15:30:45.123Z');
  const credentials = {
    accessKeyId: 'AKIAEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  };

  it.each([
    [
      'https://bedrock-runtime.eu-central-1.amazonaws.com',
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
      credentials,
    ],
    [
      'http://127.0.0.1:4567/proxy/',
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fx/converse-stream',
      { ...credentials, sessionToken: 'FwoG session  token' },
    ],
  ])('signs %s%s exactly as @smithy/signature-v4 does', async (baseUrl, path, creds) => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Grüße (!*)' }] }] });
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const ours = new BedrockSigner(() => at).sign(baseUrl, 'eu-central-1', creds, path, body, headers);
    const url = new URL(baseUrl);
    const sdk = await new SignatureV4({
      service: 'bedrock',
      region: 'eu-central-1',
      credentials: creds,
      sha256: Hash.bind(null, 'sha256'),
    }).sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        path: `${url.pathname.replace(/\/+$/, '')}${path}`,
        query: {},
        headers: { ...headers, host: url.host },
        body,
      },
      { signingDate: at },
    );
    expect(ours).toEqual(sdk.headers);
  });
});
