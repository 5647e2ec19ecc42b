// The audit entry the Audit page reads (the OpenAPI's AuditEntryDto, as far as the page uses it) and its filters.
export interface AuditEntry {
  readonly position: number;
  readonly eventId: string;
  readonly occurredAt: string;
  readonly actor: {
    readonly kind: 'user' | 'apiKey' | 'app' | 'platform';
    readonly id: string;
    readonly userId: string | null;
  };
  readonly credentialKind: 'apiKey' | 'adminApiKey' | 'session' | 'appToken' | 'none';
  readonly action: string;
  readonly eventType: string;
  readonly resource: {
    readonly type: string;
    readonly id: string;
    readonly streamId: string;
    readonly revision: number;
  };
  readonly changes: readonly { readonly field: string; readonly before: unknown; readonly after: unknown }[];
  readonly correlationId: string;
  readonly causationId: string | null;
}

/** The filters GET /audit and its export take, as the page's address keeps them (a link is the same view). */
export const FILTERS = [
  'actorId',
  'resourceId',
  'resourceType',
  'action',
  'from',
  'to',
  'correlationId',
] as const;
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

export const filtersOf = (search: string): Filters => {
  const params = new URLSearchParams(search);
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
};

export const queryOf = (filters: Filters, extra: Record<string, string> = {}): string =>
  new URLSearchParams({
    ...(Object.fromEntries(Object.entries(filters).filter(([, value]) => value)) as Record<string, string>),
    ...extra,
  }).toString();
