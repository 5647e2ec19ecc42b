// A call an MCP App view makes of its own server's tools through the chat (the ext-apps host's `tools/call`), under
// the rules of the model's calls: the conversation is the caller's own, the answer it shows holds a view of the same
// App, the tool is one the Agent is offered (not switched off, not `never`, visible to views), and arguments that do
// not match its input schema are the call's error, never sent; a tool set to `ask` is made only with the person's
// decision in the request (the chat asks before it sends). The call is recorded as the model's are (requested, approved or denied, completed or failed,
// arguments and result sealed with the answer's key), except in an incognito conversation, which records nothing.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { forbidden, Requires, type Principal } from '#access';
import { ConversationDirectory, ConversationResolver, RecordToolCall } from '#conversations';
import type { CommandContext } from '#eventsourcing';
import { newId, PlatformError } from '#kernel';
import { AgentToolCatalog } from '../../agent-tool-catalog.js';
import { McpToolsContextProvider } from '../../mcp/mcp-tools.provider.js';
import { viewMayCall } from '../../mcp/mcp-app-view.js';

export interface ViewToolResult {
  readonly callId: string;
  readonly ok: boolean;
  /** The MCP result the view reads: `content`, `structuredContent`, `isError`. */
  readonly result: unknown;
}

/** The MCP client's own timeout ends a call first; this only bounds a call nobody is waiting for any more. */
const CALL_LIMIT_MS = 60 * 60_000;

const notFound = (code: string, message: string, param: string) =>
  new PlatformError('not_found', code, message, param);

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: CallViewTool) =>
  conversations.owned(agentId, conversationId),
)
export class CallViewTool extends Command<ViewToolResult> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    /** The tool as the model knows it: `<appId>__<tool>`. */
    readonly name: string,
    /** The answer whose view makes the call. */
    readonly messageId: string,
    readonly args: Record<string, unknown>,
    readonly decision: 'approve' | 'deny' | undefined,
    readonly userId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CallViewTool)
export class CallViewToolHandler implements ICommandHandler<CallViewTool> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly catalog: AgentToolCatalog,
    private readonly tools: McpToolsContextProvider,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: CallViewTool): Promise<ViewToolResult> {
    const { agentId, conversationId, name, messageId, args, decision, userId, context } = command;
    const owned = await this.directory.owned(agentId, conversationId);
    const answer = await owned.reads.message(messageId);
    if (answer?.role !== 'assistant' || !answer.provenance || !answer.replyTo)
      throw notFound('message_not_found', `No answer '${messageId}' in this conversation`, 'messageId');
    const tool = (await this.catalog.tools(owned.agent.id)).find((candidate) => candidate.name === name);
    if (!tool) throw notFound('app_tool_not_found', `The Agent is offered no App tool '${name}'`, 'name');
    if (!answer.provenance.toolCalls.some((call) => call.view?.appId === tool.app.id))
      throw forbidden('app_tool_of_another_app', 'A view calls only the tools of its own App');
    if (!viewMayCall(tool.offer))
      throw forbidden('app_tool_not_for_views', `The tool '${name}' is for the model only`);
    if (!tool.enabled || tool.approval === 'never')
      throw forbidden('app_tool_switched_off', `The tool '${name}' is switched off for this Agent`);
    if (tool.approval === 'ask' && decision === undefined)
      throw new PlatformError(
        'conflict',
        'tool_approval_required',
        `The tool '${name}' is set to ask: send the person's decision ("approve" or "deny")`,
        'decision',
      );
    const stored = owned.record.visibility !== 'incognito';
    const record = async (fact: RecordToolCall['fact']) => {
      if (stored) await this.commands.execute(new RecordToolCall(owned.record.id, fact, context));
    };
    const callId = newId('tcl');
    const approval = tool.approval === 'ask' ? 'ask' : 'auto';
    await record({
      kind: 'requested',
      callId,
      answerId: answer.id,
      replyTo: answer.replyTo,
      name,
      arguments: JSON.stringify(args),
      approval,
    });
    if (approval === 'ask') {
      const decided = decision === 'approve' ? 'approved' : 'denied';
      await record({ kind: 'decided', callId, decision: decided, userId });
      if (decided === 'denied')
        return { callId, ok: false, result: errorResult('The person refused the call.') };
    }
    let result: string | undefined;
    const outcome = await this.tools.call(
      tool.app,
      tool.offer,
      args,
      { signal: AbortSignal.timeout(CALL_LIMIT_MS), person: { userId, context } },
      (json) => {
        result = json;
      },
    );
    await record({ kind: 'finished', callId, answerId: answer.id, ok: outcome.ok, content: outcome.content });
    if (!outcome.ok) return { callId, ok: false, result: errorResult(outcome.content) };
    return {
      callId,
      ok: true,
      result: result
        ? (JSON.parse(result) as unknown)
        : { content: [{ type: 'text', text: outcome.content }] },
    };
  }
}

const errorResult = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
