// Request validation with zod: the first problem becomes a 400 naming the field (`param`).
import { Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ValidationError } from '../../kernel/src/index.js';

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' = 'body',
): z.output<S> {
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issue.path.map(String).join('.');
  if (issue.path.length === 0) {
    throw new ValidationError('invalid_body', `request ${where} must be a JSON object: ${issue.message}`);
  }
  const missing = issue.code === 'invalid_type' && issue.message.includes('undefined');
  const unknown = issue.code === 'unrecognized_keys';
  const field = unknown ? (issue as { keys: string[] }).keys.join(', ') : param;
  throw new ValidationError(
    missing ? 'missing_field' : unknown ? 'unknown_field' : 'invalid_field',
    missing ? `${field} is required` : unknown ? `unknown field: ${field}` : `${field}: ${issue.message}`,
    unknown
      ? [...issue.path.map(String), (issue as { keys: string[] }).keys[0]].filter(Boolean).join('.')
      : param,
  );
}

@Injectable()
export class ZodBody<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}
  transform(value: unknown): z.output<S> {
    return parseOrThrow(this.schema, value, 'body');
  }
}

@Injectable()
export class ZodQuery<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}
  transform(value: unknown): z.output<S> {
    return parseOrThrow(this.schema, value, 'query');
  }
}
