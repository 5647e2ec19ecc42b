// The MCP App view of a tool call, as a tool's outcome, the turn's stream events and the answer's provenance carry it.

/** An MCP App view of a tool call: its App, its `ui://` resource and the result the view is given. */
export interface ToolView {
  readonly appId: string;
  readonly uri: string;
  /** The MCP result as JSON (`content`, `structuredContent`), as the view reads it. */
  readonly result: string;
}
