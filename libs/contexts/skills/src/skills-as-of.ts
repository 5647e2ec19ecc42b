// Time travel for Skills: one Skill as of a time, and the Skills an Agent had available then (the versions active),
// folded from the Skill streams with the decider's evolve (pure folds, no read model). The views are the read
// models' shapes, so the routes answer them as the live ones.
import { byCodeUnits, type EventEnvelope } from '#kernel';
import type { AgentView } from '#agents';
import type { EventStore } from '#event-store';
import { foldAsOf, foldStreamsAsOf } from '#eventsourcing';
import {
  evolveSkill,
  initialSkillState,
  SKILL_EVENT_TYPES,
  skillStreamId,
  type SkillEvent,
  type SkillRecord,
  type SkillState,
} from './skill.events.js';
import type { SkillVersionView, SkillView } from './skills.read-model.js';

export interface SkillAsOf {
  readonly skill: SkillView;
  readonly versions: readonly SkillVersionView[];
}

/** When each version was saved first and last, and published, from the stream's events up to `asOf`. */
function versionTimes(events: readonly EventEnvelope[], asOf: Date) {
  const times = new Map<string, { createdAt: string; updatedAt: string; publishedAt: string | null }>();
  for (const event of events) {
    if (Date.parse(event.metadata.occurredAt) > asOf.getTime()) break;
    const at = event.metadata.occurredAt;
    const data = event.data as { versionId?: string };
    if (event.type === 'SkillDraftSaved' && data.versionId) {
      const known = times.get(data.versionId);
      times.set(data.versionId, { createdAt: known?.createdAt ?? at, updatedAt: at, publishedAt: null });
    } else if (event.type === 'SkillVersionPublished' && data.versionId) {
      const known = times.get(data.versionId);
      if (known) times.set(data.versionId, { ...known, publishedAt: at });
    }
  }
  return times;
}

function viewsOf(
  state: SkillRecord,
  firstAt: string,
  lastAt: string,
  times: ReturnType<typeof versionTimes>,
): SkillAsOf {
  const { placement } = state;
  const skill: SkillView = {
    id: state.skillId,
    name: state.name,
    description: state.description,
    placement: placement.kind,
    spaceId: placement.kind === 'space' ? placement.spaceId : null,
    agentId: placement.kind === 'agent' ? placement.agentId : null,
    source: state.source,
    provider: state.provider,
    sourceId: state.sourceId,
    creatorType: state.creatorType,
    creatorId: state.creatorId,
    activeVersionId: state.activeVersionId,
    draftVersionId: state.draftVersionId,
    marketplace: state.marketplace,
    listedVersionId: state.listedVersionId,
    versionIds: state.versions.map((version) => version.versionId),
    createdAt: firstAt,
    updatedAt: lastAt,
  };
  const versions = state.versions.map((version): SkillVersionView => {
    const time = times.get(version.versionId);
    const { versionId, ...content } = version;
    return {
      ...content,
      id: versionId,
      skillId: state.skillId,
      createdAt: time?.createdAt ?? firstAt,
      updatedAt: time?.updatedAt ?? firstAt,
      publishedAt: version.state === 'published' ? (time?.publishedAt ?? null) : null,
    };
  });
  return { skill, versions };
}

/** The Skill as of a time with its versions then; null when it did not exist yet or was deleted by then. */
export async function skillAsOf(store: EventStore, skillId: string, asOf: Date): Promise<SkillAsOf | null> {
  const events = await store.readStream(skillStreamId(skillId));
  const { state, firstAt, lastAt } = foldAsOf<SkillState, SkillEvent>(
    events,
    asOf,
    initialSkillState(),
    evolveSkill,
  );
  if (state.status !== 'live') return null;
  return viewsOf(state, firstAt!, lastAt!, versionTimes(events, asOf));
}

/**
 * The Skills an Agent (as it was then: its Space) had available at a time, as AvailableSkills answers now: the
 * DEFAULT ones, its Space's and its own with a published active version, its own winning over its Space's and those
 * over the defaults by name; each with the version that was active. One pass over the log (foldStreamsAsOf).
 */
export async function availableSkillsAsOf(
  store: EventStore,
  agent: Pick<AgentView, 'id' | 'spaceId'>,
  asOf: Date,
): Promise<SkillAsOf[]> {
  const folded = await foldStreamsAsOf<SkillState, SkillEvent>(
    store,
    { streamPrefix: skillStreamId(''), eventTypes: SKILL_EVENT_TYPES },
    asOf,
    initialSkillState,
    evolveSkill,
  );
  const rank = (state: SkillRecord): number | null =>
    state.placement.kind === 'global'
      ? 0
      : state.placement.kind === 'space' && state.placement.spaceId === agent.spaceId
        ? 1
        : state.placement.kind === 'agent' && state.placement.agentId === agent.id
          ? 2
          : null;
  const byName = new Map<string, { rank: number; skillId: string }>();
  for (const { state } of folded.values()) {
    if (state.status !== 'live' || !state.activeVersionId) continue;
    const place = rank(state);
    if (place === null) continue;
    const known = byName.get(state.name);
    if (!known || known.rank <= place) byName.set(state.name, { rank: place, skillId: state.skillId });
  }
  const available: SkillAsOf[] = [];
  for (const { skillId } of byName.values()) {
    const found = await skillAsOf(store, skillId, asOf);
    const active = found?.versions.find((version) => version.id === found.skill.activeVersionId);
    if (found && active?.state === 'published') available.push({ skill: found.skill, versions: [active] });
  }
  return available.toSorted((a, b) => byCodeUnits(a.skill.name, b.skill.name));
}
