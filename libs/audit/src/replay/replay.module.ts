// Regression replay for the CLI (`cli replay`): TurnReplay with the model gateway it calls.
import { Module } from '@nestjs/common';
import { ModelGatewayModule } from '#model-gateway';
import { TurnReplay } from './turn-replay.js';

@Module({ imports: [ModelGatewayModule], providers: [TurnReplay], exports: [TurnReplay] })
export class ReplayModule {}
