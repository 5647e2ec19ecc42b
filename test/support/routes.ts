// The routes the running application registered: every controller method Nest knows, as `METHOD /path/{param}` (the
// same path form as the OpenAPI document and the authorization route table).
import 'reflect-metadata';
import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';

const joinPath = (...parts: (string | string[] | undefined)[]): string =>
  `/${parts
    .flatMap((part) => (Array.isArray(part) ? part : [part ?? '']))
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/')}`;

export function registeredRoutes(app: INestApplication): string[] {
  const routes: string[] = [];
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const controller = wrapper.metatype as Type | null;
    if (!controller) continue;
    const prefixes = ([] as (string | undefined)[]).concat(
      Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined,
    );
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler: unknown = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const paths = ([] as (string | undefined)[]).concat(
        Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined,
      );
      for (const prefix of prefixes)
        for (const path of paths) routes.push(`${RequestMethod[method]} ${joinPath(prefix, path)}`);
    }
  }
  return [...new Set(routes)].toSorted();
}
