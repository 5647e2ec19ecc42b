// The LLM context of the core API (`/api/v1/core/llm/{agentId}/…`): model calls made as an Agent, through the
// gateway's ModelGateway so both surfaces share model resolution, usage limits and usage recording.
// Its calls (`calls/<verb-noun>/`: generate text, object, image, speech; transcribe) are not writes: they append
// nothing but usage (recorded by the gateway through its own command), and they carry the client's AbortSignal. So,
// like a conversation turn, each is a direct service call from its controller (the documented exception to "a
// command on the bus", see docs/architecture.md "How a write is wired"), never a command class on the CommandBus.
import { Module } from '@nestjs/common';
import { ConversationsModule } from '#conversations';
import { ModelGatewayModule } from '#model-gateway';
import { AgentCalls } from './agent-calls.js';
import { GenerateImageController } from './calls/generate-image/generate-image.controller.js';
import { GenerateImageCall } from './calls/generate-image/generate-image.call.js';
import { GenerateObjectController } from './calls/generate-object/generate-object.controller.js';
import { GenerateObjectCall } from './calls/generate-object/generate-object.call.js';
import { GenerateTextController } from './calls/generate-text/generate-text.controller.js';
import { GenerateTextCall } from './calls/generate-text/generate-text.call.js';
import { GenerateSpeechController } from './calls/generate-speech/generate-speech.controller.js';
import { GenerateSpeechCall } from './calls/generate-speech/generate-speech.call.js';
import { TranscribeAudioController } from './calls/transcribe-audio/transcribe-audio.controller.js';
import { TranscribeAudioCall } from './calls/transcribe-audio/transcribe-audio.call.js';
import { StandaloneBridgeController } from './calls/standalone-bridge.controller.js';
import { ConversationHistory } from './conversation-history.js';
import { GetAgentUsageController } from './queries/get-agent-usage/get-agent-usage.controller.js';
import { GetAgentUsageHandler } from './queries/get-agent-usage/get-agent-usage.query.js';
import { ListAgentModelsController } from './queries/list-agent-models/list-agent-models.controller.js';
import { ListAgentModelsHandler } from './queries/list-agent-models/list-agent-models.query.js';
import { ListInstanceModelsController } from './queries/list-instance-models/list-instance-models.controller.js';
import { ListInstanceModelsHandler } from './queries/list-instance-models/list-instance-models.query.js';

export const LLM_CONTROLLERS = [
  GenerateTextController,
  GenerateObjectController,
  GenerateImageController,
  GenerateSpeechController,
  TranscribeAudioController,
  StandaloneBridgeController,
  ListAgentModelsController,
  ListInstanceModelsController,
  GetAgentUsageController,
];

export const LLM_CALLS = [
  GenerateTextCall,
  GenerateObjectCall,
  GenerateImageCall,
  GenerateSpeechCall,
  TranscribeAudioCall,
];

export const LLM_QUERY_HANDLERS = [ListAgentModelsHandler, ListInstanceModelsHandler, GetAgentUsageHandler];

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  controllers: LLM_CONTROLLERS,
  providers: [...LLM_CALLS, ...LLM_QUERY_HANDLERS, AgentCalls, ConversationHistory],
})
export class AgentGenerationModule {}
