// GET /models (our design; admins): every model the instance has configured, for the operations page.
import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { ModelInfoDto } from '../../llm.schemas.js';
import { ListInstanceModels } from './list-instance-models.query.js';

const InstanceModelsDto = z.object({ data: z.array(ModelInfoDto) });

@Controller('api/v1/core')
export class ListInstanceModelsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Operations',
    summary: "List the instance's models (admins)",
    response: {
      status: 200,
      schema: InstanceModelsDto,
      description:
        'Every configured model: kind, provider, security tier, location, price per million tokens',
    },
    errors: [401, 403],
  })
  @Get('models')
  list() {
    return this.queries.execute(new ListInstanceModels());
  }
}
