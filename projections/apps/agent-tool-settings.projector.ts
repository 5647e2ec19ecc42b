// Builds the settings of Agents' App tools (libs/contexts/apps/src/agent-tools.read-model.ts): one document per
// (Agent, tool) a manager changed. Each event sets the one field it is about over what the document holds, so
// applying an event twice changes nothing; a deleted Agent's settings go with it.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { Page, WriteOp } from '#read-store';
import type { AgentEvent } from '#agents';
import {
  AGENT_TOOL_SETTINGS,
  AGENT_TOOL_SETTINGS_READ_MODEL,
  agentToolSettingId,
  type AgentToolEvent,
  type AgentToolSettingView,
} from '#apps';

const setting = async (
  event: EnvelopeOf<AgentToolEvent>,
  context: ProjectionContext,
  set: Partial<AgentToolSettingView>,
): Promise<WriteOp[]> => {
  const { agentId, tool } = event.data;
  const id = agentToolSettingId(agentId, tool);
  const known = await context.get<AgentToolSettingView>(AGENT_TOOL_SETTINGS, id);
  return [{ kind: 'upsert', collection: AGENT_TOOL_SETTINGS, doc: { ...known, id, agentId, tool, ...set } }];
};

/** The settings of a deleted Agent: all of them, page by page (an Agent has at most a few hundred tools). */
const forgotten = async (agentId: string, context: ProjectionContext): Promise<WriteOp[]> => {
  const ops: WriteOp[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<AgentToolSettingView> = await context.find<AgentToolSettingView>(
      AGENT_TOOL_SETTINGS,
      { agentId },
      { limit: 500, cursor },
    );
    for (const doc of page.data) ops.push({ kind: 'delete', collection: AGENT_TOOL_SETTINGS, id: doc.id });
    cursor = page.nextCursor;
  } while (cursor);
  return ops;
};

export const agentToolSettingsProjector = defineProjector<
  AgentToolEvent | Extract<AgentEvent, { type: 'AgentDeleted' }>
>({
  name: AGENT_TOOL_SETTINGS_READ_MODEL.projection,
  version: 2,
  collections: [AGENT_TOOL_SETTINGS_READ_MODEL],
  on: {
    AgentToolSwitchedOff: (event, context) => setting(event, context, { enabled: false }),
    AgentToolSwitchedOn: (event, context) => setting(event, context, { enabled: true }),
    AgentToolApprovalSet: (event, context) => setting(event, context, { approval: event.data.approval }),
    AgentDeleted: (event, context) => forgotten(event.data.agentId, context),
  },
});
