// Plain-text rendering for the CLI: one line per event, aligned tables, short durations.
import type { EventEnvelope } from '#kernel';

const actorOf = (event: EventEnvelope): string => `${event.metadata.actor.kind}:${event.metadata.actor.id}`;

/** A line of the global log: position, time, stream, type, actor and correlation. */
export function logLine(event: EventEnvelope): string {
  return [
    String(event.position).padStart(6),
    event.metadata.occurredAt,
    event.streamId,
    event.type,
    actorOf(event),
    `correlation=${event.metadata.correlationId}`,
  ].join('  ');
}

/** A line of an entity's history: revision, time, type, actor, causation/correlation and the data. */
export function historyLine(event: EventEnvelope): string {
  return [
    `#${event.revision}`.padStart(4),
    event.metadata.occurredAt,
    event.type,
    `by ${actorOf(event)}`,
    `causation=${event.metadata.causationId ?? '-'}`,
    `correlation=${event.metadata.correlationId}`,
    JSON.stringify(event.data),
  ].join('  ');
}

/** Left-aligned columns under a header, two spaces apart; numbers are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  // A column is numeric when every cell is a number (or '-' for none) and at least one is a number.
  const numeric = header.map(
    (_, column) =>
      rows.every((row) => /^(\d[\d.]*\+?|-)$/.test(row[column] ?? '')) &&
      rows.some((row) => /\d/.test(row[column] ?? '')),
  );
  const render = (cells: readonly string[], isHeader: boolean) =>
    cells
      .map((cell, column) =>
        numeric[column] && !isHeader ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [render(header, true), ...rows.map((row) => render(row, false))];
}

/** 950 ms → "0.9s", 75 s → "1m15s", 2 h → "2h0m". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${(Math.floor(seconds * 10) / 10).toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${Math.floor(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}
