// How a fake AWS service checks a request's signature as AWS does: a Bedrock API key (`Authorization: Bearer`), or
// SigV4 (service `bedrock`) signed again with `@smithy/signature-v4` and the known secret, over the headers the
// request says it signed; the answer is AWS's error type and message for each way it can be wrong.
import { createHash } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { FakeRequest } from './fake-server.js';

/** The access key id the fake knows (its secret is given when it starts). */
export const FAKE_AWS_ACCESS_KEY_ID = 'AKIAFAKEBEDROCK00001';

/** `20261126T153000Z` as a Date. */
const amzDate = (value: string): Date =>
  new Date(value.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

/** Why the request's signature is refused (AWS's error type and message), or undefined when it is good. */
export async function signatureProblem(
  request: FakeRequest,
  secret: string,
  apiKey: string,
): Promise<[string, string] | undefined> {
  const authorization = request.headers.authorization ?? '';
  if (authorization.startsWith('Bearer '))
    return authorization === `Bearer ${apiKey}`
      ? undefined
      : ['UnrecognizedClientException', 'Invalid API Key format: Must start with pre-defined prefix'];
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) return ['MissingAuthenticationTokenException', 'Missing Authentication Token'];
  const [, keyId, , region, service, signedHeaders] = match;
  if (keyId !== FAKE_AWS_ACCESS_KEY_ID)
    return ['UnrecognizedClientException', 'The security token included in the request is invalid.'];
  if (service !== 'bedrock')
    return ['InvalidSignatureException', `Credential should be scoped to correct service: 'bedrock'.`];
  const contentHash = request.headers['x-amz-content-sha256'];
  if (contentHash !== undefined && contentHash !== createHash('sha256').update(request.body).digest('hex'))
    return [
      'InvalidSignatureException',
      'The provided x-amz-content-sha256 header does not match what was computed.',
    ];
  const names = signedHeaders!.split(';');
  const headers = Object.fromEntries(names.map((name) => [name, String(request.headers[name] ?? '')]));
  const token = request.headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service: 'bedrock',
    region: region!,
    credentials: {
      accessKeyId: keyId,
      secretAccessKey: secret,
      ...(typeof token === 'string' ? { sessionToken: token } : {}),
    },
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const [host, port] = String(request.headers.host ?? '').split(':');
  const again = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: host!,
      ...(port ? { port: Number(port) } : {}),
      path: request.path,
      query: Object.fromEntries(request.query),
      headers,
      body: request.body,
    },
    { signingDate: amzDate(String(request.headers['x-amz-date'] ?? '')) },
  );
  return again.headers.authorization === authorization
    ? undefined
    : [
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      ];
}
