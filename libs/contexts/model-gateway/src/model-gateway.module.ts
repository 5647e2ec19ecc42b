// The OpenAI-compatible gateway (`/api/compat/v1`): a raw model gateway, no Agent behaviour applied. ModelGateway is
// exported for the core LLM endpoints, so both surfaces share model resolution, limits and usage recording. The
// compatible API is a proxy surface, not commands and queries over aggregates: its routes sit in http/, one controller
// per route family, calling the ModelGateway directly (no bus hop on the hot path); usage is the usage context's.
import { Module } from '@nestjs/common';
import { ModelRegistry, ModelProviders } from '#model-providers';
import { UsageModule } from '#usage';
import { ModelGateway } from './model-gateway.js';
import { ChatReplies } from './http/chat-replies.js';
import { CompatChatController } from './http/compat-chat.controller.js';
import { CompatEmbeddingsController } from './http/compat-embeddings.controller.js';
import { CompatModelsController } from './http/compat-models.controller.js';
import { CompatResponsesController } from './http/compat-responses.controller.js';
import { CompatMessagesController } from './http/compat-messages.controller.js';
import { CompatStoredResponsesController } from './http/compat-stored-responses.controller.js';
import { StoredResponses } from './stored-responses/stored-response.repository.js';
import { StoredResponseSweeper } from './stored-responses/stored-response-sweeper.js';

@Module({
  imports: [UsageModule],
  controllers: [
    CompatModelsController,
    CompatChatController,
    CompatResponsesController,
    CompatStoredResponsesController,
    CompatMessagesController,
    CompatEmbeddingsController,
  ],
  providers: [
    {
      provide: ModelProviders,
      useFactory: (registry: ModelRegistry) => new ModelProviders(registry),
      inject: [ModelRegistry],
    },
    ModelGateway,
    ChatReplies,
    StoredResponses,
    StoredResponseSweeper,
  ],
  exports: [ModelGateway, UsageModule, StoredResponseSweeper],
})
export class ModelGatewayModule {}
