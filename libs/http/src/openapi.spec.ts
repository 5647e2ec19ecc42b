import 'reflect-metadata';
import { Controller, Delete, Get, Post } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute, buildOpenApi, routeDocs } from './openapi.js';

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
    ]);
  });

  it('builds the OpenAPI paths with path parameters and the request body schema', () => {
    const document = buildOpenApi(
      { title: 't', version: '1', description: 'd' },
      routeDocs([ThingsController]),
    );
    const post = document.paths['/api/v1/core/things/{thingId}/tags/{tagId}']!.post as {
      parameters: { name: string }[];
      requestBody: unknown;
      responses: Record<string, unknown>;
    };
    expect(post.parameters.map((parameter) => parameter.name)).toEqual(['thingId', 'tagId']);
    expect(post.requestBody).toBeDefined();
    expect(Object.keys(post.responses)).toEqual(['401', '404']);
  });
});
