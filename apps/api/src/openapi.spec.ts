// The OpenAPI document is built at its first request, once, not while the api starts.
import type { DiscoveryService } from '@nestjs/core';
import { openApiDocument } from './openapi.js';

describe('openApiDocument', () => {
  it('reads the controllers only when the document is first asked for, and builds it once', () => {
    let reads = 0;
    const discovery = {
      getControllers: () => {
        reads++;
        return [];
      },
    } as unknown as DiscoveryService;

    const document = openApiDocument(discovery);
    expect(reads).toBe(0);

    const first = document();
    expect(first).toMatchObject({ openapi: '3.1.0', paths: {} });
    expect(document()).toBe(first);
    expect(reads).toBe(1);
  });
});
