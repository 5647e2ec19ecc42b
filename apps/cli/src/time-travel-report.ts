// `skill show|diff` and `agent knowledge|skills`: time travel from a terminal for a Skill, an Agent's Knowledge set
// and its available Skills, over the same folds the api answers `?asOf=` with. An operator at the CLI holds the
// stores, so no access policy narrows what it reads.
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '#event-store';
import { agentAsOf } from '#agents';
import { knowledgeSetAsOf } from '#knowledge';
import { availableSkillsAsOf, skillAsOf, toSkillDto } from '#skills';
import { CLI_OUTPUT, CliError, type CliOutput } from './output.js';

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

@Injectable()
export class TimeTravelReport {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {}

  private async skillAt(skillId: string, at: string) {
    const found = await skillAsOf(this.eventStore, skillId, new Date(at));
    if (!found) throw new CliError(`Skill '${skillId}' did not exist at ${at}`);
    return toSkillDto(found.skill, found.versions);
  }

  /** The Skill with its versions as of a time (now when none is given), as JSON. */
  async skillShow(skillId: string, asOf?: string): Promise<void> {
    this.output.line(JSON.stringify(await this.skillAt(skillId, asOf ?? new Date().toISOString()), null, 2));
  }

  /** The Skill's fields that differ between two times (versions by number and state), one a line. */
  async skillDiff(skillId: string, from: string, to: string): Promise<void> {
    const flat = async (at: string): Promise<Record<string, unknown>> => {
      const { createdAt: _c, updatedAt: _u, versions, ...fields } = await this.skillAt(skillId, at);
      return { ...fields, versions: (versions ?? []).map((version) => `${version.number}:${version.state}`) };
    };
    const before = await flat(from);
    const after = await flat(to);
    let changed = 0;
    for (const field of Object.keys({ ...before, ...after })) {
      if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
      changed += 1;
      this.output.line(`${field}: ${show(before[field])} → ${show(after[field])}`);
    }
    if (changed === 0) this.output.line(`no change between ${from} and ${to}`);
  }

  /** The Agent (its Space then) at a time; null when it did not exist then. */
  private agentAt(agentId: string, at: string) {
    return agentAsOf(this.eventStore, agentId, new Date(at));
  }

  private async knowledgeAt(agentId: string, at: string): Promise<Map<string, string>> {
    const agent = await this.agentAt(agentId, at);
    if (!agent) return new Map();
    const documents = await knowledgeSetAsOf(this.eventStore, agent, new Date(at));
    return new Map(documents.map((document) => [document.id, `${document.name} (${document.status})`]));
  }

  private async skillsAt(agentId: string, at: string): Promise<Map<string, string>> {
    const agent = await this.agentAt(agentId, at);
    if (!agent) return new Map();
    const skills = await availableSkillsAsOf(this.eventStore, agent, new Date(at));
    return new Map(
      skills.map(({ skill, versions }) => [skill.name, `version ${versions[0]!.number}`] as const),
    );
  }

  /** The Agent's Knowledge set (with statuses) at a time, or what changed between two: `+`, `-`, `~` lines. */
  async knowledge(agentId: string, times: { asOf?: string; from?: string; to?: string }): Promise<void> {
    await this.listOrDiff(agentId, times, (at) => this.knowledgeAt(agentId, at), 'documents');
  }

  /** The Agent's available Skills (the versions active) at a time, or what changed between two. */
  async skills(agentId: string, times: { asOf?: string; from?: string; to?: string }): Promise<void> {
    await this.listOrDiff(agentId, times, (at) => this.skillsAt(agentId, at), 'Skills');
  }

  private async listOrDiff(
    agentId: string,
    { asOf, from, to }: { asOf?: string; from?: string; to?: string },
    at: (time: string) => Promise<Map<string, string>>,
    what: string,
  ): Promise<void> {
    if ((from === undefined) !== (to === undefined))
      throw new CliError('name both --from and --to, or neither');
    if (from === undefined) {
      const time = asOf ?? new Date().toISOString();
      const entries = await at(time);
      if (entries.size === 0) this.output.line(`no ${what} for Agent '${agentId}' at ${time}`);
      for (const [key, value] of entries) this.output.line(`${key} ${value}`);
      return;
    }
    const before = await at(from);
    const after = await at(to!);
    let changed = 0;
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const [old, now] = [before.get(key), after.get(key)];
      if (old === now) continue;
      changed += 1;
      if (old === undefined) this.output.line(`+ ${key} ${now}`);
      else if (now === undefined) this.output.line(`- ${key} ${old}`);
      else this.output.line(`~ ${key}: ${old} → ${now}`);
    }
    if (changed === 0) this.output.line(`no change between ${from} and ${to}`);
  }
}
