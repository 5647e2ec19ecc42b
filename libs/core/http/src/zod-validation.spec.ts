import { z } from 'zod';
import { ValidationError } from '#kernel';
import { parseOrThrow } from './zod-validation.js';

const Body = z.strictObject({ name: z.string(), full: z.boolean().default(false) });

const problem = (value: unknown) => {
  try {
    parseOrThrow(Body, value);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const { code, message, param } = error as ValidationError;
    return { code, message, param };
  }
  throw new Error('expected a ValidationError');
};

describe('parseOrThrow', () => {
  it('tells a missing field from a field of the wrong type, and names it', () => {
    expect(problem({ full: true })).toEqual({
      code: 'missing_field',
      message: 'name is required',
      param: 'name',
    });
    expect(problem({ name: 'a', full: 'yes' })).toEqual({
      code: 'invalid_field',
      message: 'full: Invalid input: expected boolean, received string',
      param: 'full',
    });
    expect(problem({ name: 'a', extra: 1 })).toMatchObject({ code: 'unknown_field', param: 'extra' });
    expect(problem([])).toMatchObject({ code: 'invalid_body' });
    expect(parseOrThrow(Body, { name: 'a' })).toEqual({ name: 'a', full: false });
  });
});
