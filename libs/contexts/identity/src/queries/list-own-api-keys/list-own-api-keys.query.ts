// Developer Settings' reads: the caller's own API keys (oldest first), and one of them as the writes answer it after
// creating, revoking or rotating it. Never the secrets.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { READ_STORE, type ReadStore } from '#read-store';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { AskedAtRoute, type Caller } from '#access';
import { toApiKeyDto } from '../get-api-key/api-key.dto.js';

type ApiKeyAnswer = ReturnType<typeof toApiKeyDto>;

/** A user holds at most this many keys of their own in one answer. */
const OWN_KEYS_PAGE = 1000;

@AskedAtRoute("the route row asks apiKey.own: the caller's own keys")
export class ListOwnApiKeys extends Query<{ data: ApiKeyAnswer[] }> {
  constructor(readonly caller: Caller) {
    super();
  }
}

/** A key the caller's write just made or changed (the write checked it is theirs), as its answer shows it. */
@AskedAtRoute("the route row asks apiKey.own; it answers the key a write just asked was the caller's own")
export class GetOwnApiKey extends Query<ApiKeyAnswer | null> {
  constructor(readonly apiKeyId: string) {
    super();
  }
}

@QueryHandler(ListOwnApiKeys)
export class ListOwnApiKeysHandler implements IQueryHandler<ListOwnApiKeys> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ caller }: ListOwnApiKeys) {
    const keys = await this.readStore
      .reader<ApiKeyView>(API_KEYS)
      .find({ ownerUserId: caller.userId }, { sort: { field: 'createdAt' }, limit: OWN_KEYS_PAGE });
    return { data: keys.data.map(toApiKeyDto) };
  }
}

@QueryHandler(GetOwnApiKey)
export class GetOwnApiKeyHandler implements IQueryHandler<GetOwnApiKey> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ apiKeyId }: GetOwnApiKey) {
    const key = await this.readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
    return key ? toApiKeyDto(key) : null;
  }
}
