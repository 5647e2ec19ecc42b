// `Idempotency-Key` on POST: the first request's outcome is recorded in the log (stream per caller and key), and a
// retry with the same key and body replays it without running the command again. A concurrent retry gets 409; the
// same key with another body gets 422. Secrets in a response (an issued API key, an App's token, an invitation or reset
// link) are not recorded: a replay shows null. The record is written by commands through the kit
// (StartIdempotentRequest, FinishIdempotentRequest; its decider is idempotency.decider.ts).
// Controllers of commands apply it with @UseInterceptors; model calls do not (a retried completion is a new one, as
// upstream gateways treat it), which also keeps the rxjs interceptor chain off the gateway's hot path.
import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { PLATFORM_CONFIG, sha256, ValidationError, type PlatformConfig } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import type { RequestWithCaller } from '#access';
import { toErrorResponse } from '#http';
import { idempotencyStreamId } from '../idempotency.events.js';
import {
  FinishIdempotentRequest,
  StartIdempotentRequest,
  type IdempotentRequest,
} from '../commands/record-idempotent-request/record-idempotent-request.command.js';

// Fields of an answer that hold a secret shown once (an API key, an App's token, a link carrying a token): never kept
// for a replay.
const SECRET_FIELDS = ['key', 'token', 'link'];

/**
 * The Idempotency-Key a request carries (undefined: none), or 400 `invalid_idempotency_key`. The one reading of the
 * header: a conversation turn, which keeps its own replay (turn-idempotency.ts says why), reads its key here too.
 */
export const idempotencyKeyOf = (header: string | string[] | undefined): string | undefined => {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY.test(header))
    throw new ValidationError(
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters',
      'Idempotency-Key',
    );
  return header;
};

const KEY = /^[\x21-\x7e]{1,255}$/;

const redact = (body: unknown): unknown =>
  body && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([field, value]) => [field, SECRET_FIELDS.includes(field) ? null : value]),
      )
    : body;

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly commands: CommandBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.caller) return next.handle();
    const declaredStatus = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as
      number | undefined;
    return from(
      this.handle(request, context.switchToHttp().getResponse<FastifyReply>(), header, next, declaredStatus),
    );
  }

  private async handle(
    request: RequestWithCaller,
    reply: FastifyReply,
    header: string | string[],
    next: CallHandler,
    declaredStatus: number | undefined,
  ) {
    const idempotencyKey = idempotencyKeyOf(header)!;
    const caller = request.caller!;
    const keyed: IdempotentRequest = {
      apiKeyId: caller.apiKey.id,
      idempotencyKey,
      fingerprint: sha256(`${request.method} ${request.url}\u0000${JSON.stringify(request.body ?? null)}`),
    };
    // The record's events carry the request's actor and correlation, and nothing of its idempotent seed (set below).
    const recording: CommandContext = {
      actor: caller.actor,
      correlationId: caller.correlationId,
      now: () => new Date(),
    };
    const start = await this.commands.execute(
      new StartIdempotentRequest(keyed, this.config.idempotencyInFlightMs, recording),
    );
    if (!start.run) {
      void reply.status(start.status);
      void reply.header('idempotent-replayed', 'true');
      return start.body;
    }
    // The request's entity and event ids derive from the caller, the key and the request: if an earlier attempt got
    // its command appended and died before recording completion, running it again finds that command applied.
    request.caller = {
      ...caller,
      idempotent: {
        seed: sha256(
          `${idempotencyStreamId(keyed.apiKeyId, keyed.idempotencyKey)}\u0000${keyed.fingerprint}`,
        ),
        commands: new Map(),
      },
    };
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      // Nest applies a route's status (its @HttpCode, else a POST's 201) after the handler, so 200 here means that one.
      const status = reply.statusCode === 200 ? (declaredStatus ?? 201) : reply.statusCode;
      await this.commands.execute(
        new FinishIdempotentRequest(keyed, { type: 'completed', status, body: redact(body) }, recording),
      );
      return body;
    } catch (error) {
      const status = toErrorResponse(error)?.status ?? 500;
      await this.commands
        .execute(new FinishIdempotentRequest(keyed, { type: 'failed', status }, recording))
        .catch(() => undefined);
      throw error;
    }
  }
}
