// A client's JSON Schema, compiled with ajv to check a model's structured output. The schema is untrusted input (see
// ajv's security notes), so its size and depth are bounded, and compiling and checking run under a time limit: a
// `pattern` such as `^(a|a)*$` can backtrack for minutes on a crafted string, and without the limit one request
// would block the process. The draft follows `$schema`: 2020-12 or 2019-09 when named (zod's toJSONSchema emits
// 2020-12), draft-07 otherwise. Each schema gets its own ajv instance, so nothing of one request's schema (its `$id`,
// its compiled code) outlives or collides with another's.
import vm from 'node:vm';
import type { Ajv, AnySchemaObject, ErrorObject, Options } from 'ajv';
import { lazyModule, ValidationError } from '#kernel';

// Loaded at the first generateObject: ajv and its drafts cost about 13 MB of RSS.
const ajv07 = lazyModule<typeof import('ajv')>('ajv');
const ajv2019 = lazyModule<typeof import('ajv/dist/2019.js')>('ajv/dist/2019.js');
const ajv2020 = lazyModule<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
const formats = lazyModule<typeof import('ajv-formats')>('ajv-formats');

export const MAX_SCHEMA_CHARS = 100_000;
export const MAX_SCHEMA_DEPTH = 32;
export const SCHEMA_TIME_LIMIT_MS = 1_000;

/** Checks a value against the schema: the problems as short lines, none when it is valid. */
export type OutputValidator = (value: unknown) => string[];

const invalidSchema = (message: string) => new ValidationError('invalid_schema', message, 'schema');

// V8 can only interrupt running JavaScript (a backtracking regular expression included) through the vm module's
// timeout, which watches whatever the script calls. One context serves every call: they never overlap.
const timeBoxed = new vm.Script('run()');
const timeBoxedContext = vm.createContext({ run: (): unknown => undefined });

function withinTimeLimit<T>(run: () => T, timeLimitMs: number, what: string): T {
  timeBoxedContext.run = run;
  try {
    return timeBoxed.runInContext(timeBoxedContext, { timeout: timeLimitMs }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw invalidSchema(
        `${what} took longer than ${timeLimitMs} ms; simplify the schema (a pattern that backtracks, such as (a+)+?)`,
      );
    throw error;
  } finally {
    timeBoxedContext.run = () => undefined;
  }
}

function assertBounded(schema: unknown): void {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS)
    throw invalidSchema(`schema is larger than ${MAX_SCHEMA_CHARS} characters of JSON`);
  const pending: [unknown, number][] = [[schema, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_SCHEMA_DEPTH) throw invalidSchema(`schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
}

function ajvFor(schema: AnySchemaObject): Ajv {
  const options: Options = { strict: false, allErrors: true };
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv: Ajv = draft.includes('2020-12')
    ? new (ajv2020().Ajv2020)(options)
    : draft.includes('2019-09')
      ? new (ajv2019().Ajv2019)(options)
      : new (ajv07().Ajv)(options);
  formats().default(ajv);
  return ajv;
}

/** ajv's errors as short lines: `/age must be integer`, `(root) must have required property 'name'`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const where = error.instancePath === '' ? '(root)' : error.instancePath;
    const extra =
      error.keyword === 'additionalProperties'
        ? ` ('${String((error.params as { additionalProperty?: unknown }).additionalProperty)}')`
        : error.keyword === 'enum'
          ? `: ${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)}`
          : '';
    return `${where} ${error.message ?? 'is invalid'}${extra}`;
  });
}

/** Compiles a client's schema, or throws 400 `invalid_schema` (param `schema`) with ajv's reason. */
export function compileSchema(
  schema: Record<string, unknown>,
  timeLimitMs = SCHEMA_TIME_LIMIT_MS,
): OutputValidator {
  assertBounded(schema);
  // Loading ajv (the first call's require), adding the formats and compiling the draft's meta-schema (what checks the
  // client's schema) are ours, not the schema's: outside the limit, which a loaded machine would otherwise exceed.
  const ajv = ajvFor(schema);
  void ajv.validateSchema({});
  const validate = withinTimeLimit(
    () => {
      try {
        return ajv.compile(schema);
      } catch (error) {
        throw invalidSchema(`schema is not a usable JSON Schema: ${(error as Error).message}`);
      }
    },
    timeLimitMs,
    'compiling the schema',
  );
  return (value) =>
    withinTimeLimit(
      () => (validate(value) ? [] : describeErrors(validate.errors)),
      timeLimitMs,
      'checking the output against the schema',
    );
}
