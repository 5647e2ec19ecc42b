// The OpenAI-compatible gateway (`/api/compat/v1`): a raw model gateway, no Agent behaviour applied.
import { Module } from '@nestjs/common';
import { CompatModelsController } from './http/compat-models.controller.js';

@Module({ controllers: [CompatModelsController] })
export class GatewayModule {}
