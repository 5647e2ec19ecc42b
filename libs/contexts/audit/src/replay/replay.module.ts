// Regression replay for the CLI (`cli replay`): TurnReplay with the model gateway it calls and the conversations'
// context providers (Knowledge, and those Memory and Skills add when their modules start) whose sections it re-sends.
import { Module } from '@nestjs/common';
import { ModelGatewayModule } from '#model-gateway';
import { ConversationsModule } from '#conversations';
import { TurnReplay } from './turn-replay.js';

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  providers: [TurnReplay],
  exports: [TurnReplay],
})
export class ReplayModule {}
