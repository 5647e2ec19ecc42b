// Typed errors of the domain and the stores. The HTTP layer maps each kind to one status and the error envelope.

export type ErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  /** The client went away before the answer (nobody reads the response; logged as 499). */
  | 'cancelled'
  /** A model upstream failed or answered unusably (502). */
  | 'upstream_failed'
  /** A model upstream did not answer in time (504). */
  | 'upstream_timeout';

export class PlatformError extends Error {
  /** Response headers the error asks for (Retry-After on a 429). */
  headers: Readonly<Record<string, string>> = {};

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends PlatformError {
  constructor(code: string, message: string, param?: string) {
    super('validation', code, message, param);
  }
}

export class NotFoundError extends PlatformError {
  constructor(what: string, id: string) {
    super(
      'not_found',
      `${what.toLowerCase().replace(/\s+/g, '_')}_not_found`,
      `${what} '${id}' was not found`,
    );
  }
}

export class ConflictError extends PlatformError {
  constructor(code: string, message: string, param?: string) {
    super('conflict', code, message, param);
  }
}

export class ForbiddenError extends PlatformError {
  constructor(code: string, message: string) {
    super('forbidden', code, message);
  }
}

export class UnauthorizedError extends PlatformError {
  constructor(code: string, message: string) {
    super('unauthorized', code, message);
  }
}

export class ServiceUnavailableError extends PlatformError {
  constructor(code: string, message: string) {
    super('unavailable', code, message);
  }
}

/** The stream was not at the revision the writer expected (optimistic concurrency). */
export class WrongExpectedRevisionError extends PlatformError {
  constructor(
    readonly streamId: string,
    readonly expected: string,
    readonly actual: number | 'no_stream',
  ) {
    super(
      'conflict',
      'wrong_expected_revision',
      `Stream '${streamId}' expected ${expected}, actual ${actual}`,
    );
  }
}

/** Some ids of an append were stored before but the batch differs: not a retry, a misuse of event ids. */
export class IdempotencyMismatchError extends PlatformError {
  constructor(readonly streamId: string) {
    super(
      'conflict',
      'event_id_reused',
      `Stream '${streamId}': part of this batch's event ids are already stored with other events`,
    );
  }
}
