// The usage context: the record of model calls (UsageRecorder), spend limits (UsageLimiter per key, UserSpendLimiter per
// user, which the model gateway consults before a call) and the usage and cost-control routes.
import { Module } from '@nestjs/common';
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

export const USAGE_CONTROLLERS = [
  GetUsageController,
  GetCostControlController,
  SetUsageLimitController,
  GetUserSpendController,
  SetUserSpendLimitController,
];

export const USAGE_COMMAND_HANDLERS = [
  SetUsageLimitHandler,
  RecordModelCallsHandler,
  SetUserSpendLimitHandler,
];

export const USAGE_QUERY_HANDLERS = [
  GetUsageHandler,
  GetCostControlHandler,
  GetUserSpendHandler,
  ListUserSpendHandler,
];

@Module({
  controllers: USAGE_CONTROLLERS,
  providers: [
    ...USAGE_COMMAND_HANDLERS,
    ...USAGE_QUERY_HANDLERS,
    UsageRecorder,
    UsageLimiter,
    UserSpendLimiter,
  ],
  exports: [UsageRecorder, UsageLimiter, UserSpendLimiter],
})
export class UsageModule {}
