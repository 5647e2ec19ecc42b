// The answer step the compatible routes share: the model is called once through the ModelGateway, whole or streamed,
// and the route's format turns the result (or each delta, through its encoder) into its wire shape. A route parses,
// translates its request, and names its format; the call, the stream loop and its errors are here and in stream-reply.
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import type { ChatRequest, ChatResult, ModelConfig } from '#model-providers';
import { ModelGateway, type CallScope } from '../model-gateway.js';
import { streamReply, type StreamEncoder } from './stream-reply.js';

export interface ChatCall {
  readonly scope: CallScope;
  readonly model: ModelConfig;
  readonly request: ChatRequest;
  readonly signal: AbortSignal;
  readonly stream: boolean;
}

/** A route's answer format: the whole answer, and (made only for a streamed call) the encoder of its events. */
export interface ChatFormat {
  /** The answer's body (a promise when the route keeps the answer before sending it: a stored response). */
  whole(result: ChatResult): unknown;
  encoder(): StreamEncoder;
}

@Injectable()
export class ChatReplies {
  constructor(
    private readonly gateway: ModelGateway,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async send(reply: FastifyReply, call: ChatCall, format: ChatFormat): Promise<void> {
    const { scope, model, request, signal } = call;
    if (!call.stream) {
      const result = await this.gateway.chat(scope, model, request, signal);
      const body = format.whole(result);
      void reply.status(200).send(body instanceof Promise ? await body : body);
      return;
    }
    const deltas = await this.gateway.chatStream(scope, model, request, signal);
    await streamReply(
      reply,
      this.config.streamStallTimeoutMs,
      this.logger,
      model.key,
      deltas,
      format.encoder(),
    );
  }
}
