// The API keys, oldest first (admins); never the secrets.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { ListQuery } from '#http';
import { READ_STORE, type ReadStore } from '#read-store';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { AskedAtRoute, type Caller } from '#access';
import { toApiKeyDto } from '../get-api-key/api-key.dto.js';

@AskedAtRoute('the route row asks apiKey.manage (admins)')
export class ListApiKeys extends Query<{
  data: ReturnType<typeof toApiKeyDto>[];
  nextCursor: string | null;
}> {
  constructor(
    readonly query: z.output<typeof ListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ query }: ListApiKeys) {
    const page = await this.readStore
      .reader<ApiKeyView>(API_KEYS)
      .find({}, { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null });
    return { data: page.data.map(toApiKeyDto), nextCursor: page.nextCursor };
  }
}
