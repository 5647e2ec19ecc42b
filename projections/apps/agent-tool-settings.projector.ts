// Builds the settings of Agents' App tools (libs/contexts/apps/src/agent-tools.read-model.ts): one document per
// (Agent, tool) a manager changed. Each event sets the one field it is about over what the document holds, so
// applying an event twice changes nothing.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
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

export const agentToolSettingsProjector = defineProjector<AgentToolEvent>({
  name: AGENT_TOOL_SETTINGS_READ_MODEL.projection,
  version: 1,
  collections: [AGENT_TOOL_SETTINGS_READ_MODEL],
  on: {
    AgentToolSwitchedOff: (event, context) => setting(event, context, { enabled: false }),
    AgentToolSwitchedOn: (event, context) => setting(event, context, { enabled: true }),
    AgentToolApprovalSet: (event, context) => setting(event, context, { approval: event.data.approval }),
  },
});
