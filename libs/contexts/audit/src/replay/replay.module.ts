// Regression replay (`cli replay`, and POST /replays for admins in the api): TurnReplay with the model gateway it calls
// and the conversations' context providers (Knowledge, and those Memory and Skills add when their modules start) whose
// sections it re-sends.
import { Module } from '@nestjs/common';
import { ModelGatewayModule } from '#model-gateway';
import { ConversationsModule } from '#conversations';
import { TurnReplay } from './turn-replay.js';
import { RunReplayController } from './commands/run-replay/run-replay.controller.js';
import { RunReplayHandler } from './commands/run-replay/run-replay.command.js';

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  controllers: [RunReplayController],
  providers: [TurnReplay, RunReplayHandler],
  exports: [TurnReplay],
})
export class ReplayModule {}
