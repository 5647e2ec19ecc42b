// Request validation with zod: the first problem becomes a 400 naming the field (`param`).
import { Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ValidationError } from '#kernel';

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' = 'body',
): z.output<S> {
  // reportInput: an issue carries the value it is about, so a field of the wrong type is not taken for a missing one.
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}), { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const param = [...path, issue.keys[0]!].join('.');
    throw new ValidationError('unknown_field', `unknown field: ${issue.keys.join(', ')}`, param);
  }
  if (path.length === 0)
    throw new ValidationError('invalid_body', `request ${where} must be a JSON object: ${issue.message}`);
  const param = path.join('.');
  // A check that names its own code (input_too_large, …) keeps it.
  const code = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  if (typeof code === 'string') throw new ValidationError(code, `${param}: ${issue.message}`, param);
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  throw new ValidationError(
    missing ? 'missing_field' : 'invalid_field',
    missing ? `${param} is required` : `${param}: ${issue.message}`,
    param,
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
