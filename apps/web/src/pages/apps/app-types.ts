// The App shapes the Apps page reads (the OpenAPI's AppDto, as far as the page uses it).
export type Enablement =
  { readonly kind: 'global' } | { readonly kind: 'agents'; readonly agentIds: readonly string[] };

export interface App {
  readonly id: string;
  readonly name: string;
  readonly source:
    | { readonly type: 'url'; readonly url: string }
    | { readonly type: 'container'; readonly image: string; readonly port: number };
  readonly enablement: Enablement;
  readonly meta: {
    readonly name: string;
    readonly standalone: boolean;
    readonly views: readonly { readonly id: string; readonly title: string }[];
    readonly tools: readonly { readonly name: string; readonly description: string }[];
  } | null;
  readonly lastError: string | null;
  readonly proxyPath: string;
}
