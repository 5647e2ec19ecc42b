// The turn's side of one MCP tool call: what the server sends while it runs (progress, log lines, sampling requests,
// questions for the person) goes to the call's session with its turn; a list the server says changed has its App read
// again. A call without a session (a replay's) serves no sampling and declines every question.
import type { ToolCallSession } from '#conversations';
import { compileSchema } from '#agent-generation';
import type { McpSessionHost } from './mcp-session.js';

/** Checks a person's answer against the schema the server asked with (the schema's own faults are the answer's). */
function checkAgainst(schema: Record<string, unknown>) {
  let validate: ((value: unknown) => string[]) | null = null;
  return (content: Readonly<Record<string, unknown>>): readonly string[] => {
    try {
      validate ??= compileSchema({ ...schema, type: 'object' });
      return validate(content);
    } catch (error) {
      return [`the requested schema cannot be checked: ${(error as Error).message}`];
    }
  };
}

export function mcpCallHost(session: ToolCallSession | undefined, listChanged: () => void): McpSessionHost {
  if (!session) return { listChanged };
  return {
    listChanged,
    log: (level, text) => session.log(level, text),
    sample: (request, signal) => session.sample(request, signal),
    elicit: (request, signal) =>
      session.elicit({ ...request, check: checkAgainst(request.requestedSchema) }, signal),
  };
}
