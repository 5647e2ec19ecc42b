// What an MCP server offers, as an MCP App records it when registered or refreshed: the server's name and version,
// its tools (name, description, input schema, annotations), resources and prompts.

export interface McpToolOffer {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The tool's JSON Schema for its arguments, as the server gave it. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title: hints, never trusted for safety. */
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** MCP Apps (`_meta.ui`): the `ui://` view its results render in, and who may call it (default both). */
  readonly ui?: {
    readonly resourceUri?: string;
    readonly visibility?: readonly ('model' | 'app')[];
  };
}

export interface McpOffer {
  readonly server: { readonly name: string; readonly version: string };
  readonly tools: readonly McpToolOffer[];
  readonly resources: readonly {
    readonly uri: string;
    readonly name: string;
    readonly description?: string;
    readonly mimeType?: string;
  }[];
  readonly prompts: readonly { readonly name: string; readonly description?: string }[];
}
