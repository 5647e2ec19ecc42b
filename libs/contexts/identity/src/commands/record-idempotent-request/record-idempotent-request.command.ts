// Recording an HTTP request sent with an Idempotency-Key (the IdempotencyInterceptor sends these around the request's
// own command): StartIdempotentRequest before it runs — it answers the recorded answer of a request already completed,
// for a replay — and FinishIdempotentRequest with how it ended. No principal: the key is the caller's own, named by
// their API key. The first writer wins: a concurrent start of the same key is 409, not a second run.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PlatformError } from '#kernel';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { idempotencyDecider, keyInUse, type IdempotencyCommand } from '../../idempotency.decider.js';
import { idempotencyStreamId } from '../../idempotency.events.js';
import { AskedAtRoute } from '#access';

export interface IdempotentRequest {
  readonly apiKeyId: string;
  readonly idempotencyKey: string;
  readonly fingerprint: string;
}

/** Run the request; or replay the answer recorded for it. */
export type IdempotentStart =
  { readonly run: true } | { readonly run: false; readonly status: number; readonly body: unknown };

@AskedAtRoute(
  "no route sends it: the IdempotencyInterceptor records the request of a caller the guard authenticated (its own key's)",
)
export class StartIdempotentRequest extends Command<IdempotentStart> {
  constructor(
    readonly request: IdempotentRequest,
    readonly inFlightMs: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@AskedAtRoute(
  "no route sends it: the IdempotencyInterceptor records the request of a caller the guard authenticated (its own key's)",
)
export class FinishIdempotentRequest extends Command<void> {
  constructor(
    readonly request: IdempotentRequest,
    readonly outcome: Extract<IdempotencyCommand, { type: 'FinishIdempotentRequest' }>['outcome'],
    readonly context: CommandContext,
  ) {
    super();
  }
}

const streamOf = ({ apiKeyId, idempotencyKey }: IdempotentRequest) =>
  idempotencyStreamId(apiKeyId, idempotencyKey);

@CommandHandler(StartIdempotentRequest)
export class StartIdempotentRequestHandler implements ICommandHandler<StartIdempotentRequest> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ request, inFlightMs, context }: StartIdempotentRequest): Promise<IdempotentStart> {
    const streamId = streamOf(request);
    const command = {
      type: 'StartIdempotentRequest',
      fingerprint: request.fingerprint,
      now: context.now().toISOString(),
      inFlightMs,
    } as const;
    const started = await this.aggregates
      .decide(streamId, idempotencyDecider, command, context, { retries: 0 })
      .catch((error: unknown) => {
        throw error instanceof PlatformError && error.code === 'wrong_expected_revision' ? keyInUse() : error;
      });
    if (started.events.length > 0) return { run: true };
    // Nothing to start: the request completed, and its answer is replayed.
    const { state } = await this.aggregates.load(streamId, idempotencyDecider);
    if (state.status !== 'completed') throw keyInUse();
    return { run: false, ...state.answer };
  }
}

@CommandHandler(FinishIdempotentRequest)
export class FinishIdempotentRequestHandler implements ICommandHandler<FinishIdempotentRequest> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ request, outcome, context }: FinishIdempotentRequest): Promise<void> {
    await this.aggregates.decide(
      streamOf(request),
      idempotencyDecider,
      { type: 'FinishIdempotentRequest', fingerprint: request.fingerprint, outcome },
      context,
    );
  }
}
