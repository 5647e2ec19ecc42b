// The fields of a tool server's question, read from its requested schema (MCP's primitive subset: a flat object of
// strings — plain, email, URL, date —, numbers, integers, booleans, single-choice enums, and lists of choices), and
// the answer's content built back from what the person entered.

export interface Choice {
  readonly value: string;
  readonly label: string;
}

export type FieldKind =
  'text' | 'email' | 'url' | 'date' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';

export interface Field {
  readonly key: string;
  readonly label: string;
  readonly description?: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly choices: readonly Choice[];
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** The schema's default, as the form holds it. */
  readonly initial: string | boolean | readonly string[];
}

type Schema = Readonly<Record<string, unknown>>;

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `enum` (with the legacy `enumNames`), or `oneOf` / `anyOf` of `{ const, title }`. */
function choicesOf(schema: Schema): Choice[] {
  const titled = (schema.oneOf ?? schema.anyOf) as { const?: unknown; title?: unknown }[] | undefined;
  if (Array.isArray(titled))
    return titled
      .filter((option) => typeof option.const === 'string')
      .map((option) => ({ value: String(option.const), label: str(option.title) ?? String(option.const) }));
  const values = Array.isArray(schema.enum) ? schema.enum.map(String) : [];
  const names = Array.isArray(schema.enumNames) ? schema.enumNames.map(String) : [];
  return values.map((value, index) => ({ value, label: names[index] ?? value }));
}

function kindOf(schema: Schema): { kind: FieldKind; choices: Choice[] } {
  if (schema.type === 'array') {
    const items = (schema.items ?? {}) as Schema;
    return { kind: 'choices', choices: choicesOf(items) };
  }
  const choices = choicesOf(schema);
  if (choices.length > 0) return { kind: 'choice', choices };
  if (schema.type === 'boolean') return { kind: 'boolean', choices };
  if (schema.type === 'number' || schema.type === 'integer') return { kind: schema.type, choices };
  const format = schema.format;
  return {
    kind: format === 'email' ? 'email' : format === 'uri' ? 'url' : format === 'date' ? 'date' : 'text',
    choices,
  };
}

function initialOf(kind: FieldKind, value: unknown): Field['initial'] {
  if (kind === 'boolean') return value === true;
  if (kind === 'choices') return Array.isArray(value) ? value.map(String) : [];
  return value === undefined || value === null ? '' : String(value);
}

export function fieldsOf(requestedSchema: Schema): Field[] {
  const properties = (requestedSchema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(
    Array.isArray(requestedSchema.required) ? requestedSchema.required.map(String) : [],
  );
  return Object.entries(properties).map(([key, schema]) => {
    const { kind, choices } = kindOf(schema);
    const limits = {
      min: num(schema.minimum) ?? num(schema.minItems),
      max: num(schema.maximum) ?? num(schema.maxItems),
      minLength: num(schema.minLength),
      maxLength: num(schema.maxLength),
    };
    return {
      key,
      label: str(schema.title) ?? key,
      ...(str(schema.description) ? { description: str(schema.description) } : {}),
      kind,
      required: required.has(key),
      choices,
      ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
      initial: initialOf(kind, schema.default),
    };
  });
}

/** The content of an accepted answer: what was entered, typed as the schema asks; empty optional fields left out. */
export function contentOf(
  fields: readonly Field[],
  values: Readonly<Record<string, Field['initial']>>,
): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.key] ?? field.initial;
    if (field.kind === 'boolean') content[field.key] = value === true;
    else if (field.kind === 'choices') {
      if ((value as string[]).length > 0 || field.required) content[field.key] = value;
    } else if (typeof value === 'string' && value.trim() !== '')
      content[field.key] = field.kind === 'number' || field.kind === 'integer' ? Number(value) : value.trim();
  }
  return content;
}
