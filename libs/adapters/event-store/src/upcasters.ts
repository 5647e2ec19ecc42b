// Upcasters turn a stored event of an older schemaVersion into the current shape when it is read.
import type { EventEnvelope } from '#kernel';

export interface Upcaster {
  readonly eventType: string;
  /** The schemaVersion this upcaster reads; it returns data of version fromVersion + 1. */
  readonly fromVersion: number;
  readonly upcast: (data: unknown) => unknown;
}

export class UpcasterRegistry {
  private readonly byType = new Map<string, Map<number, Upcaster>>();

  register(...upcasters: Upcaster[]): this {
    for (const upcaster of upcasters) {
      const versions = this.byType.get(upcaster.eventType) ?? new Map<number, Upcaster>();
      versions.set(upcaster.fromVersion, upcaster);
      this.byType.set(upcaster.eventType, versions);
    }
    return this;
  }

  /** Applies the chain of upcasters from the event's stored version to the newest one registered. */
  upcast<E extends EventEnvelope>(event: E): E {
    const versions = this.byType.get(event.type);
    if (!versions) return event;
    let { data } = event;
    let version = event.metadata.schemaVersion;
    for (let step = versions.get(version); step; step = versions.get(version)) {
      data = step.upcast(data);
      version += 1;
    }
    if (version === event.metadata.schemaVersion) return event;
    return { ...event, data, metadata: { ...event.metadata, schemaVersion: version } };
  }
}
