// The LLM context of the core API (`/api/v1/core/llm/{agentId}/…`): model calls made as an Agent, through the
// gateway's ModelGateway so both surfaces share model resolution, usage limits and usage recording.
import { Module } from '@nestjs/common';
import { ConversationsModule } from '#conversations';
import { ModelGatewayModule } from '#model-gateway';
import { AgentCalls } from './agent-calls.js';
import { GenerateImageController } from './commands/generate-image/generate-image.controller.js';
import { GenerateImageHandler } from './commands/generate-image/generate-image.command.js';
import { GenerateObjectController } from './commands/generate-object/generate-object.controller.js';
import { GenerateObjectHandler } from './commands/generate-object/generate-object.command.js';
import { GenerateTextController } from './commands/generate-text/generate-text.controller.js';
import { GenerateTextHandler } from './commands/generate-text/generate-text.command.js';
import { GenerateSpeechController } from './commands/generate-speech/generate-speech.controller.js';
import { GenerateSpeechHandler } from './commands/generate-speech/generate-speech.command.js';
import { TranscribeAudioController } from './commands/transcribe-audio/transcribe-audio.controller.js';
import { TranscribeAudioHandler } from './commands/transcribe-audio/transcribe-audio.command.js';
import { StandaloneBridgeController } from './commands/standalone-bridge.controller.js';
import { ConversationAccess } from './conversation-access.js';
import { GetAgentUsageController } from './queries/get-agent-usage/get-agent-usage.controller.js';
import { GetAgentUsageHandler } from './queries/get-agent-usage/get-agent-usage.query.js';
import { ListAgentModelsController } from './queries/list-agent-models/list-agent-models.controller.js';
import { ListAgentModelsHandler } from './queries/list-agent-models/list-agent-models.query.js';

export const LLM_CONTROLLERS = [
  GenerateTextController,
  GenerateObjectController,
  GenerateImageController,
  GenerateSpeechController,
  TranscribeAudioController,
  StandaloneBridgeController,
  ListAgentModelsController,
  GetAgentUsageController,
];

export const LLM_COMMAND_HANDLERS = [
  GenerateTextHandler,
  GenerateObjectHandler,
  GenerateImageHandler,
  GenerateSpeechHandler,
  TranscribeAudioHandler,
];

export const LLM_QUERY_HANDLERS = [ListAgentModelsHandler, GetAgentUsageHandler];

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  controllers: LLM_CONTROLLERS,
  providers: [...LLM_COMMAND_HANDLERS, ...LLM_QUERY_HANDLERS, AgentCalls, ConversationAccess],
})
export class AgentGenerationModule {}
