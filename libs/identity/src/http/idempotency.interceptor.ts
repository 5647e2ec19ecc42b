// `Idempotency-Key` on POST: the first request's outcome is recorded in the log (stream per caller and key), and a
// retry with the same key and body replays it without running the command again. A concurrent retry gets 409; the
// same key with another body gets 422. Secrets in a response (an issued API key, an App's token, an invitation or reset
// link) are not recorded: a replay shows null.
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
import type { FastifyReply } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import {
  ConflictError,
  newEventId,
  PLATFORM_CONFIG,
  PlatformError,
  sha256,
  ValidationError,
  type PlatformConfig,
} from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import type { RequestWithCaller } from '#access';
import { toErrorResponse } from '#http';

const KEY = /^[\x21-\x7e]{1,255}$/;
// Fields of an answer that hold a secret shown once (an API key, an App's token, a link carrying a token): never kept
// for a replay.
const SECRET_FIELDS = ['key', 'token', 'link'];

type IdempotencyEvent =
  | { type: 'IdempotentRequestStarted'; data: { fingerprint: string; startedAt: string } }
  | { type: 'IdempotentRequestCompleted'; data: { fingerprint: string; status: number; body: unknown } }
  | { type: 'IdempotentRequestFailed'; data: { fingerprint: string; status: number } };

const redact = (body: unknown): unknown =>
  body && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([field, value]) => [field, SECRET_FIELDS.includes(field) ? null : value]),
      )
    : body;

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
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
    if (typeof header !== 'string' || !KEY.test(header))
      throw new ValidationError(
        'invalid_idempotency_key',
        'Idempotency-Key must be 1 to 255 printable ASCII characters',
        'Idempotency-Key',
      );
    const caller = request.caller!;
    const streamId = `idempotency-${sha256(`${caller.apiKey.id}\u0000${header}`).slice(0, 40)}`;
    const fingerprint = sha256(
      `${request.method} ${request.url}\u0000${JSON.stringify(request.body ?? null)}`,
    );
    const history = (await this.store.readStream(streamId)) as unknown as (IdempotencyEvent & {
      revision: number;
    })[];
    const last = history.at(-1);
    if (last && last.data.fingerprint !== fingerprint)
      throw new PlatformError(
        'unprocessable',
        'idempotency_key_reused',
        'this Idempotency-Key was used with another request',
        'Idempotency-Key',
      );
    if (last?.type === 'IdempotentRequestCompleted') {
      void reply.status(last.data.status);
      void reply.header('idempotent-replayed', 'true');
      return last.data.body;
    }
    if (
      last?.type === 'IdempotentRequestStarted' &&
      Date.now() - Date.parse(last.data.startedAt) < this.config.idempotencyInFlightMs
    )
      throw new ConflictError(
        'idempotency_key_in_use',
        'a request with this Idempotency-Key is still in progress',
      );

    const metadata = {
      correlationId: caller.correlationId,
      causationId: null,
      actor: caller.actor,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    };
    const append = (event: IdempotencyEvent, expected: number | 'no_stream') =>
      this.store.appendToStream(
        streamId,
        [{ id: newEventId(), ...event, metadata: { ...metadata, occurredAt: new Date().toISOString() } }],
        expected,
      );
    const started = await append(
      { type: 'IdempotentRequestStarted', data: { fingerprint, startedAt: new Date().toISOString() } },
      last ? last.revision : 'no_stream',
    ).catch((error: unknown) => {
      throw error instanceof PlatformError && error.code === 'wrong_expected_revision'
        ? new ConflictError(
            'idempotency_key_in_use',
            'a request with this Idempotency-Key is still in progress',
          )
        : error;
    });
    // The request's entity and event ids derive from the caller, the key and the request: if an earlier attempt got
    // its command appended and died before recording completion, running it again finds that command applied.
    request.caller = {
      ...caller,
      idempotent: { seed: sha256(`${streamId}\u0000${fingerprint}`), commands: new Map() },
    };
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      // Nest applies a route's status (its @HttpCode, else a POST's 201) after the handler, so 200 here means that one.
      const status = reply.statusCode === 200 ? (declaredStatus ?? 201) : reply.statusCode;
      await append(
        { type: 'IdempotentRequestCompleted', data: { fingerprint, status, body: redact(body) } },
        started.nextRevision,
      );
      return body;
    } catch (error) {
      const status = toErrorResponse(error)?.status ?? 500;
      await append(
        { type: 'IdempotentRequestFailed', data: { fingerprint, status } },
        started.nextRevision,
      ).catch(() => undefined);
      throw error;
    }
  }
}
