// The platform as an MCP server, for one caller: what an MCP client (Claude Code, Codex CLI, an IDE) may do with a
// user's API key — list the Agents it may use, ask one (a real conversation turn: its Knowledge, memory rules and
// citations), search an Agent's Knowledge — and read the Agents' Ready documents as resources. Every call goes through
// the query bus as the caller, so the one authorization policy answers as it does for the REST routes (an Agent the
// key may not use is an error of the tool, never a 5xx); usage is the key's, as on the core API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import type { Caller } from '#access';
import { ListAgents } from '#agents';
import type { ConversationTurns } from '#conversations';
import { GetDocumentText, ListDocuments, SearchKnowledge } from '#knowledge';
import { PlatformError } from '#kernel';

export interface PlatformMcpDeps {
  readonly queries: QueryBus;
  readonly turns: ConversationTurns;
  readonly version: string;
}

/** How many Agents, and documents of each, a resource listing names at most. */
const LISTED = { agents: 200, documents: 100 } as const;

const DOCUMENT_URI = 'agent-platform://agents/{agentId}/documents/{documentId}';

const text = (value: string, structured?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(structured ? { structuredContent: structured } : {}),
});

/** A refusal or a bad argument of the platform, told to the client as the tool's error (the model reads it). */
async function asToolResult(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PlatformError) return { ...text(`${error.code}: ${error.message}`), isError: true };
    throw error;
  }
}

interface AgentItem {
  readonly id: string;
  readonly name: string;
  readonly spaceId: string | null;
}

// Over 100 lines on purpose: the server's whole surface (three tools and one resource template) in one place.
export function platformMcpServer({ queries, turns, version }: PlatformMcpDeps, caller: Caller): McpServer {
  const server = new McpServer(
    { name: 'agent-platform', title: 'Agent Platform', version },
    { capabilities: { logging: {} } },
  );
  const agents = async (): Promise<AgentItem[]> =>
    (await queries.execute(new ListAgents({ limit: LISTED.agents }, caller))).data as AgentItem[];

  server.registerTool(
    'list_agents',
    {
      title: 'List Agents',
      description:
        'The Agents this API key may use: their ids (for ask_agent and search_knowledge) and names',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      asToolResult(async () => {
        const list = await agents();
        const lines = list.map((agent) => `${agent.id}: ${agent.name}`);
        return text(lines.join('\n') || 'No Agents', {
          agents: list.map(({ id, name, spaceId }) => ({ id, name, spaceId })),
        });
      }),
  );

  server.registerTool(
    'ask_agent',
    {
      title: 'Ask an Agent',
      description:
        "Ask an Agent a question: it answers from its Knowledge and memory, citing sources as [n]. Pass the answer's " +
        'conversationId to continue the same conversation',
      inputSchema: {
        agentId: z.string().min(1).max(128).describe('From list_agents'),
        message: z.string().min(1).max(200_000),
        conversationId: z.string().min(1).max(128).optional().describe('Continue this conversation'),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ agentId, message, conversationId }, extra) =>
      asToolResult(async () => {
        const answer = await turns.run(
          {
            agentId,
            caller,
            conversationId,
            content: message,
            attachments: [],
            stream: false,
            signal: extra.signal,
          },
          async () => undefined,
        );
        const { citations, content } = answer.message;
        const sources = citations.map(
          (citation) =>
            `[${citation.index}] ${citation.documentName}${citation.sectionPath.length ? ` (${citation.sectionPath.join(' › ')})` : ''}`,
        );
        return text(sources.length ? `${content}\n\nSources:\n${sources.join('\n')}` : content, {
          conversationId: answer.conversationId,
          messageId: answer.message.id,
          answer: content,
          citations: citations.map(({ index, documentId, documentName, sectionPath }) => ({
            index,
            documentId,
            documentName,
            sectionPath: [...sectionPath],
          })),
        });
      }),
  );

  server.registerTool(
    'search_knowledge',
    {
      title: "Search an Agent's Knowledge",
      description:
        "The passages of the Agent's documents closest to the query (hybrid: keywords and meaning)",
      inputSchema: {
        agentId: z.string().min(1).max(128).describe('From list_agents'),
        query: z.string().trim().min(1).max(2_000),
        topK: z.number().int().min(1).max(50).optional().describe('How many passages (default 8)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ agentId, query, topK }) =>
      asToolResult(async () => {
        const found = await queries.execute(
          new SearchKnowledge(agentId, { query, limit: topK ?? 8, mode: 'hybrid', rerank: false }, caller),
        );
        const hits = found.hits.map(({ documentId, documentName, sectionPath, text: passage, score }) => ({
          documentId,
          documentName,
          sectionPath: [...sectionPath],
          text: passage,
          score,
        }));
        const lines = hits.map((hit, i) => `[${i + 1}] ${hit.documentName}: ${hit.text}`);
        return text(lines.join('\n\n') || 'Nothing found', { hits });
      }),
  );

  server.registerResource(
    'document',
    new ResourceTemplate(DOCUMENT_URI, {
      list: async () => {
        const resources = [];
        for (const agent of await agents()) {
          const documents = await queries.execute(
            new ListDocuments(agent.id, { scope: 'all', status: 'Ready', limit: LISTED.documents }, caller),
          );
          for (const document of documents.data)
            resources.push({
              uri: `agent-platform://agents/${agent.id}/documents/${document.id}`,
              name: document.name,
              title: `${document.name} (${agent.name})`,
              mimeType: 'text/plain',
            });
        }
        return { resources };
      },
    }),
    {
      title: "An Agent's document",
      description: 'The text extracted from a Ready document',
      mimeType: 'text/plain',
    },
    async (uri, { agentId, documentId }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: await queries.execute(new GetDocumentText(String(agentId), String(documentId), caller)),
        },
      ],
    }),
  );
  return server;
}

/**
 * Answers one MCP request (stateless: a server and a transport of its own, closed with the response), in JSON, after
 * the transport's DNS-rebinding checks (Host among `allowedHosts`, a browser Origin among `allowedOrigins`).
 */
export async function serveMcpRequest(
  deps: PlatformMcpDeps,
  caller: Caller,
  guard: { readonly allowedHosts: string[]; readonly allowedOrigins: string[] },
  http: { readonly request: IncomingMessage; readonly response: ServerResponse; readonly body: unknown },
): Promise<void> {
  const server = platformMcpServer(deps, caller);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    ...guard,
  });
  http.response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(http.request, http.response, http.body);
}
