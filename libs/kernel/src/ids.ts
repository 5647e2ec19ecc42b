// Identifiers: time-ordered UUIDv7 with a short type prefix, so ids sort by creation and say what they name.
import { createHash } from 'node:crypto';
import { v7 as uuidv7, v5 as uuidv5 } from 'uuid';

export const newId = (prefix: string): string => `${prefix}_${uuidv7().replace(/-/g, '')}`;

export const newEventId = (): string => uuidv7();

const NAMESPACE = '2c1f4a8e-7d57-4d43-9a5e-0b6d3c2f9e11';

/** A deterministic event id: the same cause and name always give the same id, which makes re-sent appends no-ops. */
export const derivedEventId = (...parts: string[]): string => uuidv5(parts.join('\u0000'), NAMESPACE);

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
