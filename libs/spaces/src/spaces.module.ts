// The Spaces bounded context: commands, handlers and routes.
import { Module } from '@nestjs/common';
import { SpacesController } from './http/spaces.controller.js';
import { SPACE_COMMAND_HANDLERS } from './space.commands.js';

@Module({ controllers: [SpacesController], providers: [...SPACE_COMMAND_HANDLERS] })
export class SpacesModule {}
