// Signs Bedrock requests with AWS Signature Version 4 (service `bedrock`, the model's `awsRegion`) using the AWS SDK's
// own signer (`@smithy/signature-v4`, SHA-256 from `@smithy/hash-node`), loaded on first use. The path is signed as
// sent (the model id URI-encoded once; the signer encodes it again, as AWS's canonical request for Bedrock wants).
import type { SignatureV4 } from '@smithy/signature-v4';
import { lazyModule } from '#kernel';
import type { AwsCredentials } from '../model-registry.js';

const signatureV4 = lazyModule<typeof import('@smithy/signature-v4')>('@smithy/signature-v4');
const hashNode = lazyModule<typeof import('@smithy/hash-node')>('@smithy/hash-node');

/** Where a base URL points, as the signature names it (its host with the port, and the path before ours). */
interface Endpoint {
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number;
  readonly host: string;
  readonly prefix: string;
}

export class BedrockSigner {
  /** One signer per region and key id: each keeps the day's signing key. */
  private readonly signers = new Map<string, SignatureV4>();
  private readonly endpoints = new Map<string, Endpoint>();

  /** The headers that sign a POST of `body` to `path` under `baseUrl`: the given ones plus host, date and signature. */
  async sign(
    baseUrl: string,
    region: string,
    credentials: AwsCredentials,
    path: string,
    body: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    const endpoint = this.endpoint(baseUrl);
    const signed = await this.signer(region, credentials).sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: endpoint.port } : {}),
      path: `${endpoint.prefix}${path}`,
      query: {},
      headers: { ...headers, host: endpoint.host },
      body,
    });
    return signed.headers;
  }

  private signer(region: string, credentials: AwsCredentials): SignatureV4 {
    const key = `${region}\u0000${credentials.accessKeyId}`;
    let signer = this.signers.get(key);
    if (!signer) {
      const { Hash } = hashNode();
      signer = new (signatureV4().SignatureV4)({
        service: 'bedrock',
        region,
        credentials,
        sha256: Hash.bind(null, 'sha256'),
      });
      if (this.signers.size >= 100) this.signers.clear();
      this.signers.set(key, signer);
    }
    return signer;
  }

  private endpoint(baseUrl: string): Endpoint {
    let endpoint = this.endpoints.get(baseUrl);
    if (!endpoint) {
      const url = new URL(baseUrl);
      endpoint = {
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        host: url.host,
        prefix: url.pathname.replace(/\/+$/, ''),
      };
      if (this.endpoints.size >= 1000) this.endpoints.clear();
      this.endpoints.set(baseUrl, endpoint);
    }
    return endpoint;
  }
}
