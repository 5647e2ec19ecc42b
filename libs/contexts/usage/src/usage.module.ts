// The usage context: the record of model calls (UsageRecorder), spend limits (UsageLimiter per key, UserSpendLimiter per
// user and per Space, which the model gateway consults before a call) and the usage and cost-control routes.
import { Module } from '@nestjs/common';
import { AgentsModule } from '#agents';
import { SetSpaceSpendLimitController } from './commands/set-space-spend-limit/set-space-spend-limit.controller.js';
import { SetSpaceSpendLimitHandler } from './commands/set-space-spend-limit/set-space-spend-limit.command.js';
import { GetSpaceSpendController } from './queries/get-space-spend/get-space-spend.controller.js';
import { GetSpaceSpendHandler } from './queries/get-space-spend/get-space-spend.query.js';
import { SetUsageLimitController } from './commands/set-usage-limit/set-usage-limit.controller.js';
import { SetUsageLimitHandler } from './commands/set-usage-limit/set-usage-limit.command.js';
import { RecordModelCallsHandler } from './commands/record-model-calls/record-model-calls.command.js';
import { GetCostControlController } from './queries/get-cost-control/get-cost-control.controller.js';
import { GetCostControlHandler } from './queries/get-cost-control/get-cost-control.query.js';
import { GetUsageController } from './queries/get-usage/get-usage.controller.js';
import { GetUsageHandler } from './queries/get-usage/get-usage.query.js';
import { SetUserSpendLimitController } from './commands/set-user-spend-limit/set-user-spend-limit.controller.js';
import { SetUserSpendLimitHandler } from './commands/set-user-spend-limit/set-user-spend-limit.command.js';
import { GetUserSpendController } from './queries/get-user-spend/get-user-spend.controller.js';
import { GetUserSpendHandler, ListUserSpendHandler } from './queries/get-user-spend/get-user-spend.query.js';
import { UsageLimiter } from './usage-limiter.js';
import { UsageRecorder } from './usage-recorder.js';
import { UserSpendLimiter } from './user-spend-limiter.js';
import { SpendLimits } from './spend-limits.js';

export const USAGE_CONTROLLERS = [
  GetUsageController,
  GetCostControlController,
  SetUsageLimitController,
  GetUserSpendController,
  SetUserSpendLimitController,
  GetSpaceSpendController,
  SetSpaceSpendLimitController,
];

export const USAGE_COMMAND_HANDLERS = [
  SetUsageLimitHandler,
  RecordModelCallsHandler,
  SetUserSpendLimitHandler,
  SetSpaceSpendLimitHandler,
];

export const USAGE_QUERY_HANDLERS = [
  GetUsageHandler,
  GetCostControlHandler,
  GetUserSpendHandler,
  ListUserSpendHandler,
  GetSpaceSpendHandler,
];

@Module({
  // SpaceGrants (who sees a Space through an Agent it is granted): the Agents context provides it.
  imports: [AgentsModule],
  controllers: USAGE_CONTROLLERS,
  providers: [
    ...USAGE_COMMAND_HANDLERS,
    ...USAGE_QUERY_HANDLERS,
    UsageRecorder,
    UsageLimiter,
    UserSpendLimiter,
    SpendLimits,
  ],
  exports: [UsageRecorder, UsageLimiter, UserSpendLimiter, SpendLimits],
})
export class UsageModule {}
