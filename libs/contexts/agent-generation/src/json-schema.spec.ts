import { z } from 'zod';
import { compileSchema, MAX_SCHEMA_DEPTH } from './json-schema.js';

const invalidSchema = expect.objectContaining({
  code: 'invalid_schema',
  param: 'schema',
  kind: 'validation',
});

describe('compileSchema', () => {
  const person = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      email: { type: 'string', format: 'email' },
      age: { type: 'integer' },
    },
    required: ['name', 'age'],
    additionalProperties: false,
  };

  it('validates with formats and reports every problem as a short line', () => {
    const validate = compileSchema(person);
    expect(validate({ name: 'Ada', age: 36, email: 'ada@example.com' })).toEqual([]);
    expect(validate({ age: 36.5, email: 'not an email', extra: 1 })).toEqual(
      expect.arrayContaining([
        "(root) must have required property 'name'",
        "(root) must NOT have additional properties ('extra')",
        '/email must match format "email"',
        '/age must be integer',
      ]),
    );
  });

  it('compiles what zod emits (draft 2020-12, prefixItems)', () => {
    const Item = z.object({ sku: z.string(), qty: z.number().int().min(1) });
    const schema = z.toJSONSchema(z.object({ items: z.array(Item), first: z.tuple([z.string()]) })) as Record<
      string,
      unknown
    >;
    expect(String(schema.$schema)).toContain('2020-12');
    const validate = compileSchema(schema);
    expect(validate({ items: [{ sku: 'a', qty: 2 }], first: ['x'] })).toEqual([]);
    expect(validate({ items: [{ sku: 'a', qty: 0 }], first: [1] })).toEqual([
      '/items/0/qty must be >= 1',
      '/first/0 must be string',
    ]);
  });

  it('ignores unknown keywords (strict off) but refuses what ajv cannot compile', () => {
    expect(compileSchema({ type: 'string', 'x-ui': 'textarea' })('text')).toEqual([]);
    for (const schema of [
      { type: 'nonsense' },
      { $ref: '#/$defs/missing' },
      { $ref: 'https://example.com/remote.json' },
      { type: 'string', pattern: '(' },
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' },
    ])
      expect(() => compileSchema(schema)).toThrow(invalidSchema);
  });

  it('stops a catastrophically backtracking pattern at the time limit instead of blocking the process', () => {
    const validate = compileSchema({ type: 'string', pattern: '^(a|a)*$' }, 200);
    expect(validate('aaaa')).toEqual([]);
    // Without the limit this input takes minutes; the error naming the limit shows the limit stopped it (how fast is
    // the benchmark's business, not a test's: a loaded machine is slow).
    expect(() => validate(`${'a'.repeat(40)}!`)).toThrow(
      expect.objectContaining({
        code: 'invalid_schema',
        message: expect.stringContaining('longer than 200 ms'),
      }),
    );
    // The validator, and every other, still work afterwards.
    expect(validate('aa')).toEqual([]);
    expect(compileSchema({ type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' })('kebab-case-name')).toEqual([]);
  });

  it('refuses schemas nested too deep or too large', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level <= MAX_SCHEMA_DEPTH; level++) deep = { type: 'array', items: deep };
    expect(() => compileSchema(deep)).toThrow(
      expect.objectContaining({ code: 'invalid_schema', message: expect.stringContaining('deeper') }),
    );
    const large = { type: 'object', description: 'x'.repeat(100_001) };
    expect(() => compileSchema(large)).toThrow(
      expect.objectContaining({ code: 'invalid_schema', message: expect.stringContaining('larger') }),
    );
  });

  it('keeps schemas apart: the same $id compiles in two requests', () => {
    const schema = { $id: 'https://example.com/thing', type: 'number' };
    expect(compileSchema(schema)(1)).toEqual([]);
    expect(compileSchema({ ...schema, type: 'string' })('one')).toEqual([]);
  });
});
