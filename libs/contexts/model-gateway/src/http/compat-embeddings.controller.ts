// POST /api/compat/v1/embeddings and POST /api/compat/v1/rerank. Embeddings answer OpenAI's list shape (floats, or
// base64 of little-endian float32 as the `openai` SDK decodes it); rerank follows the gateway's conventions with the
// error codes of the spec's table.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ValidationError } from '#kernel';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { parseOrThrow, ApiRoute } from '#http';
import type { EmbeddingInput } from '#model-providers';
import { ModelGateway } from '../model-gateway.js';
import { compatScope } from './compat-chat.controller.js';
import { EmbeddingsBody, MAX_EMBEDDING_INPUTS, RerankBody } from './compat.schemas.js';
import { abortOnDisconnect } from './sse.js';
import { Embeddings, Rerank, ERRORS } from './compat.responses.js';

/** A vector as the `openai` SDK's base64 decoding expects: float32, little-endian. */
export function toBase64Float32(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index]!, index * 4);
  return bytes.toString('base64');
}

/** Rerank validation with the spec's codes: a missing or malformed field is `invalid_body`, no documents `invalid_input`. */
function parseRerank(raw: unknown): RerankBody {
  const result = RerankBody.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const param = issue.path.map(String).join('.') || undefined;
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    const named =
      issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
    throw new ValidationError(
      typeof named === 'string' ? named : 'invalid_body',
      param
        ? missing
          ? `${param} is required`
          : `${param}: ${issue.message}`
        : 'the body must be a JSON object',
      param,
    );
  }
  return result.data;
}

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatEmbeddingsController {
  constructor(private readonly gateway: ModelGateway) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create embeddings (OpenAI format)',
    description:
      'At most 2048 inputs (400 `too_many_inputs` beyond). `dimensions` truncates each vector (no re-normalisation; ' +
      '400 `invalid_dimensions` above the model width). `input` may be text or token ids (`[15339, 1917]`, ' +
      '`[[15339, 1917]]`; passed upstream as they are, read with cl100k_base for offline-embed). An input is at most ' +
      '200,000 characters, all of them 4,000,000 (400 `input_too_large`).',
    body: EmbeddingsBody,
    response: { status: 200, schema: Embeddings, description: 'One embedding per input, in input order' },
    errors: [ERRORS[400], ERRORS[404], ERRORS[502], ERRORS[504]],
  })
  @Post('embeddings')
  @HttpCode(200)
  async embeddings(@Body() raw: unknown, @CurrentCaller() caller: Caller, @Res() reply: FastifyReply) {
    const scope = compatScope(caller);
    const body = parseOrThrow(EmbeddingsBody, raw);
    const inputs: readonly EmbeddingInput[] =
      typeof body.input === 'string' || typeof body.input[0] === 'number'
        ? [body.input as EmbeddingInput]
        : (body.input as EmbeddingInput[]);
    if (inputs.length > MAX_EMBEDDING_INPUTS)
      throw new ValidationError(
        'too_many_inputs',
        `input has ${inputs.length} items; at most ${MAX_EMBEDDING_INPUTS} are allowed per request`,
        'input',
      );
    const model = this.gateway.resolve(body.model, 'embedding');
    const result = await this.gateway.embed(scope, model, inputs, abortOnDisconnect(reply));
    const width = result.vectors[0]?.length ?? 0;
    if (body.dimensions && body.dimensions > width)
      throw new ValidationError(
        'invalid_dimensions',
        `dimensions must be at most ${width} for model '${model.key}'`,
        'dimensions',
      );
    const base64 = body.encoding_format === 'base64';
    void reply.status(200).send({
      object: 'list',
      data: result.vectors.map((vector, index) => {
        // `dimensions` truncates each vector (spec); it is not re-normalised.
        const kept = body.dimensions ? vector.slice(0, body.dimensions) : vector;
        return { object: 'embedding', index, embedding: base64 ? toBase64Float32(kept) : kept };
      }),
      model: model.key,
      usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens },
    });
  }

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Score documents against a query',
    description:
      '`model` must be the configured reranker. Errors: 400 `invalid_body` (model, query or input missing or ' +
      'malformed), 400 `invalid_input` (no documents), 404 `model_not_found`, 429 `usage_limit_exceeded`.',
    body: RerankBody,
    response: { status: 200, schema: Rerank, description: 'Documents by relevance, highest first' },
    errors: [ERRORS[400], ERRORS[404], ERRORS[429], ERRORS[502], ERRORS[504]],
  })
  @Post('rerank')
  @HttpCode(200)
  async rerank(@Body() raw: unknown, @CurrentCaller() caller: Caller, @Res() reply: FastifyReply) {
    const scope = compatScope(caller);
    const body = parseRerank(raw);
    const documents = typeof body.input === 'string' ? [body.input] : body.input;
    if (documents.length === 0)
      throw new ValidationError('invalid_input', 'input must contain at least one document', 'input');
    const model = this.gateway.resolveReranker(body.model);
    const result = await this.gateway.rerank(scope, model, body.query, documents, abortOnDisconnect(reply));
    const ranked = result.scores
      .map((relevance_score, index) => ({ index, relevance_score }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, body.top_k ?? documents.length);
    void reply.status(200).send({
      object: 'list',
      model: model.key,
      results: ranked,
      usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens },
    });
  }
}
