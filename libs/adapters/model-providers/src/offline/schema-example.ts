// A deterministic value that satisfies a JSON Schema, for the offline model's tool-call arguments and structured
// output: required properties only, strings from a given text, numbers 1 (moved into range), booleans true, the
// first enum value or the const, arrays of `minItems` items. Local `$ref`s (`#/$defs/…`, `#/definitions/…`) are
// followed; `pattern`, `format` beyond a few common ones, `uniqueItems` and `not` are not honoured.
// The example is bounded whatever the schema asks (`minItems: 200000000` once took 1.6 GB and answered 500): at most
// MAX_ITEMS items an array, MAX_STRING characters a string and OUTPUT_BUDGET characters in all; a schema that needs more
// gets a smaller value that does not satisfy it (generateObject then answers 422, as for any invalid output).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 12;
export const MAX_ITEMS = 1_000;
export const MAX_STRING = 10_000;
export const OUTPUT_BUDGET = 1_000_000;

/** What is left of the output budget, in characters, shared by the whole example. */
interface Budget {
  left: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2000-01-01T00:00:00Z',
  date: '2000-01-01',
  time: '00:00:00Z',
  email: 'offline@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

const resolveRef = (root: unknown, ref: string): unknown => {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return node;
};

const numberIn = (schema: Record<string, unknown>, integer: boolean): number => {
  const num = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? schema[key] : undefined;
  const [min, max, above, below, step] = [
    num('minimum'),
    num('maximum'),
    num('exclusiveMinimum'),
    num('exclusiveMaximum'),
    num('multipleOf'),
  ];
  const fits = (value: number): boolean =>
    Number.isFinite(value) &&
    (min === undefined || value >= min) &&
    (max === undefined || value <= max) &&
    (above === undefined || value > above) &&
    (below === undefined || value < below) &&
    (!integer || Number.isInteger(value)) &&
    (step === undefined || step <= 0 || Math.abs(value / step - Math.round(value / step)) < 1e-9);
  const low = above !== undefined ? above + 1 : min;
  const high = below !== undefined ? below - 1 : max;
  const bases = [1, min, max, low, high];
  if (low !== undefined && high !== undefined) bases.push((low + high) / 2);
  if (above !== undefined && below !== undefined) bases.push((above + below) / 2);
  const candidates: number[] = [];
  for (const base of bases) {
    if (base === undefined) continue;
    candidates.push(base, Math.ceil(base), Math.floor(base));
    if (step !== undefined && step > 0)
      candidates.push(Math.ceil(base / step) * step, Math.floor(base / step) * step);
  }
  return candidates.find(fits) ?? 1;
};

const stringFor = (schema: Record<string, unknown>, text: string, budget: Budget): string => {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  const cap = Math.max(0, Math.min(MAX_STRING, budget.left));
  let value = format ?? (text.length > 0 ? text.slice(0, cap) : 'offline');
  const chars = Array.from(value);
  if (typeof schema.maxLength === 'number' && chars.length > schema.maxLength)
    value = chars.slice(0, Math.max(0, schema.maxLength)).join('');
  const length = Array.from(value).length;
  if (typeof schema.minLength === 'number' && length < schema.minLength)
    value = value + 'x'.repeat(Math.max(0, Math.min(schema.minLength, cap) - length));
  budget.left -= value.length + 2;
  return value;
};

const firstType = (schema: Record<string, unknown>): unknown => {
  if (!Array.isArray(schema.type)) return schema.type;
  return schema.type.find((type) => type !== 'null') ?? schema.type[0];
};

const inferType = (schema: Record<string, unknown>): unknown => {
  const type = firstType(schema);
  if (type !== undefined) return type;
  if (isRecord(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  return undefined;
};

const example = (schema: unknown, root: unknown, text: string, depth: number, budget: Budget): JsonValue => {
  if (!isRecord(schema) || depth > MAX_DEPTH || budget.left <= 0) return null;
  budget.left -= 1;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...rest } = schema;
    const target = resolveRef(root, $ref);
    return example(isRecord(target) ? { ...target, ...rest } : rest, root, text, depth + 1, budget);
  }
  if ('const' in schema) return (schema.const ?? null) as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return (schema.enum[0] ?? null) as JsonValue;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const { [key]: _options, ...rest } = schema;
      return example({ ...rest, ...(isRecord(options[0]) ? options[0] : {}) }, root, text, depth + 1, budget);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    const merged: Record<string, unknown> = { ...rest };
    const properties: Record<string, unknown> = isRecord(rest.properties) ? { ...rest.properties } : {};
    const required = new Set<unknown>(Array.isArray(rest.required) ? rest.required : []);
    for (const part of allOf) {
      const resolved = isRecord(part) && typeof part.$ref === 'string' ? resolveRef(root, part.$ref) : part;
      if (!isRecord(resolved)) continue;
      Object.assign(merged, resolved);
      if (isRecord(resolved.properties)) Object.assign(properties, resolved.properties);
      if (Array.isArray(resolved.required)) for (const name of resolved.required) required.add(name);
    }
    return example({ ...merged, properties, required: [...required] }, root, text, depth + 1, budget);
  }
  switch (inferType(schema)) {
    case 'string':
      return stringFor(schema, text, budget);
    case 'integer':
      return numberIn(schema, true);
    case 'number':
      return numberIn(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const wanted = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      const items: JsonValue[] = [];
      for (let index = 0; index < Math.min(wanted, MAX_ITEMS) && budget.left > 0; index++)
        items.push(
          example(index < prefix.length ? prefix[index] : schema.items, root, text, depth + 1, budget),
        );
      return items;
    }
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const result: { [key: string]: JsonValue } = {};
      for (const name of Array.isArray(schema.required) ? schema.required : [])
        if (typeof name === 'string' && budget.left > 0)
          result[name] = example(properties[name] ?? {}, root, text, depth + 1, budget);
      return result;
    }
    default:
      // No type (`{}` or `true`): anything goes; a string carries the text.
      return stringFor(schema, text, budget);
  }
};

/** A value valid for `schema` (within the limits above), with `text` in its strings. */
export const exampleForSchema = (schema: unknown, text: string): JsonValue =>
  example(schema, schema, text, 0, { left: OUTPUT_BUDGET });
