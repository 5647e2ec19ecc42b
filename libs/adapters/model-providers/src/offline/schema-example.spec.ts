import { z } from 'zod';
import { exampleForSchema, MAX_ITEMS, OUTPUT_BUDGET } from './schema-example.js';

const TEXT = 'book a table for two';

describe('Schema example', () => {
  it('produces a value valid for a schema of every kind', () => {
    const schemas = [
      z.object({
        city: z.string(),
        count: z.number().int().min(3).max(9),
        ratio: z.number().gt(0).lt(1),
        even: z.number().int().multipleOf(2).min(5),
        flag: z.boolean(),
        unit: z.enum(['celsius', 'fahrenheit']),
        kind: z.literal('order'),
        tags: z.array(z.string()).min(2),
        nested: z.object({ at: z.string(), note: z.string().optional() }),
        short: z.string().max(4),
        long: z.string().min(40),
        email: z.email(),
        maybe: z.string().nullable(),
        either: z.union([z.number(), z.string()]),
        optional: z.string().optional(),
      }),
      z.object({}),
      z.array(z.number()).min(1),
    ];
    for (const schema of schemas) {
      const value = exampleForSchema(z.toJSONSchema(schema), TEXT);
      expect(() => schema.parse(value)).not.toThrow();
    }
  });

  it('fills strings with the text, requires only what is required, and follows local refs', () => {
    expect(
      exampleForSchema(
        {
          type: 'object',
          properties: {
            query: { type: 'string' },
            extra: { type: 'string' },
            item: { $ref: '#/$defs/item' },
          },
          required: ['query', 'item'],
          $defs: { item: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
        },
        TEXT,
      ),
    ).toEqual({ query: TEXT, item: { id: 1 } });
  });

  it('stops on recursive schemas', () => {
    const recursive = {
      type: 'object',
      properties: { child: { $ref: '#' } },
      required: ['child'],
    };
    expect(() => JSON.stringify(exampleForSchema(recursive, TEXT))).not.toThrow();
  });

  it('stays bounded whatever the schema asks for (minItems 200,000,000, huge strings, long input text)', () => {
    const items = exampleForSchema({ type: 'array', minItems: 200_000_000, items: { type: 'string' } }, TEXT);
    expect(Array.isArray(items) && items.length).toBe(MAX_ITEMS);
    const nested = exampleForSchema(
      {
        type: 'array',
        minItems: 3_000_000,
        items: { type: 'array', minItems: 3_000_000, items: { type: 'string', minLength: 1_000_000 } },
      },
      'y'.repeat(500_000),
    );
    expect(JSON.stringify(nested).length).toBeLessThanOrEqual(OUTPUT_BUDGET + 20_000);
  });
});
