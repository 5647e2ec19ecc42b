// One API key (admins).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { AskedAtRoute, type Caller } from '#access';
import { toApiKeyDto } from './api-key.dto.js';

@AskedAtRoute('the route row asks apiKey.manage (admins); the admin key writes answer with it')
export class GetApiKey extends Query<ReturnType<typeof toApiKeyDto>> {
  constructor(
    readonly apiKeyId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetApiKey)
export class GetApiKeyHandler implements IQueryHandler<GetApiKey> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ apiKeyId }: GetApiKey) {
    const view = await this.readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
    if (!view) throw new NotFoundError('API key', apiKeyId);
    return toApiKeyDto(view);
  }
}
