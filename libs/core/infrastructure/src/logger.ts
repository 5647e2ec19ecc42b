// Structured logs (pino). Every path that could carry a credential is redacted, and messages never include keys.
import { pino, type Logger } from 'pino';
import type { LoggerService } from '@nestjs/common';
import { activeTraceFields, type PlatformConfig } from '#kernel';

export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.key',
  '*.token',
  '*.password',
];

export function createLogger(
  config: Pick<PlatformConfig, 'logLevel'> & Partial<Pick<PlatformConfig, 'tracing'>>,
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: config.logLevel,
      // With tracing, a line logged inside a span (the request line included) carries its trace_id and span_id.
      ...(config.tracing?.endpoint ? { mixin: () => activeTraceFields() ?? {} } : {}),
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'agent-platform' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** Nest's logger interface over pino, so framework messages land in the same structured stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
