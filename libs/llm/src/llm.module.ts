// The LLM context of the core API (`/api/v1/core/llm/{agentId}/…`): model calls made as an Agent, through the
// gateway's ModelGateway so both surfaces share model resolution, usage limits and usage recording.
import { Module } from '@nestjs/common';
import { GatewayModule } from '#gateway';
import { ConversationAccess } from './conversation-access.js';
import { LlmController } from './http/llm.controller.js';

const CONTROLLERS = [LlmController];
const PROVIDERS = [ConversationAccess];

@Module({ imports: [GatewayModule], controllers: CONTROLLERS, providers: PROVIDERS })
export class LlmModule {}
