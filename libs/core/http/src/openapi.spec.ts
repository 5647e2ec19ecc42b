import 'reflect-metadata';
import { Controller, Delete, Get, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  ApiRoute,
  buildOpenApi,
  DEFAULT_BODY_LIMIT_BYTES,
  documentedPath,
  routeBodyLimits,
  routeDocs,
} from './openapi.js';

@Controller('api/v1/core/things/:thingId')
class ThingsController {
  @ApiRoute({ tag: 'Things', summary: 'Get a thing', response: { status: 200, description: 'The thing' } })
  @Get()
  get() {
    return {};
  }

  @ApiRoute({ tag: 'Things', summary: 'Tag a thing', body: z.object({ tag: z.string() }), errors: [404] })
  @Post('tags/:tagId')
  tag() {
    return {};
  }

  @ApiRoute({
    tag: 'Things',
    summary: 'Attach a big file',
    body: z.object({ file: z.string() }),
    bodyLimitBytes: 15 * 1024 * 1024,
  })
  @Post('files')
  attach() {
    return {};
  }

  /** Not documented: not in the document. */
  @Delete()
  remove() {
    return {};
  }

  get computed(): never {
    throw new Error('a getter on the prototype is never read');
  }
}

describe('route documentation beside the routes', () => {
  it("reads each documented route's method and path from Nest's metadata", () => {
    expect(
      routeDocs([ThingsController]).map(({ method, path, summary }) => ({ method, path, summary })),
    ).toEqual([
      { method: 'get', path: '/api/v1/core/things/{thingId}', summary: 'Get a thing' },
      { method: 'post', path: '/api/v1/core/things/{thingId}/tags/{tagId}', summary: 'Tag a thing' },
      { method: 'post', path: '/api/v1/core/things/{thingId}/files', summary: 'Attach a big file' },
    ]);
  });

  it('builds the OpenAPI paths with path parameters and the request body schema', () => {
    const document = buildOpenApi(
      { title: 't', version: '1', description: 'd' },
      routeDocs([ThingsController]),
    );
    type Operation = {
      parameters: { name: string }[];
      requestBody: { description: string };
      responses: Record<string, unknown>;
    };
    const post = document.paths['/api/v1/core/things/{thingId}/tags/{tagId}']!.post as Operation;
    expect(post.parameters.map((parameter) => parameter.name)).toEqual(['thingId', 'tagId']);
    // A route with a body names its limit (the default here) and the 413 beyond it.
    expect(post.requestBody.description).toContain(`At most ${DEFAULT_BODY_LIMIT_BYTES} bytes (10 MiB)`);
    expect(Object.keys(post.responses)).toEqual(['401', '404', '413']);
    const files = document.paths['/api/v1/core/things/{thingId}/files']!.post as Operation;
    expect(files.requestBody.description).toContain(`At most ${15 * 1024 * 1024} bytes (15 MiB)`);
  });

  it('gives the server the body limits routes declare, under the paths the router uses', () => {
    const limits = routeBodyLimits(routeDocs([ThingsController]));
    expect([...limits]).toEqual([['POST /api/v1/core/things/{thingId}/files', 15 * 1024 * 1024]]);
    expect(limits.get(`POST ${documentedPath('/api/v1/core/things/:thingId/files')}`)).toBe(15 * 1024 * 1024);
  });
});
