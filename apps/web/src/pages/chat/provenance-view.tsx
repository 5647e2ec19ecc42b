// What produced one answer, as its provenance records it: the model and provider, the Agent's revision and prompt
// hash, sampling, the sources with their document versions and content hashes, the memories and Skill versions used,
// every tool call with its arguments and result, and whether the history was compacted. Each item links to where the
// app shows it as it was then: the Agent's history at the answer's time, the memories, the audit trail.
import type { ComponentChildren } from 'preact';
import { dateTime } from '../../dates';
import { t } from '../../i18n';
import { linkTo } from '../../router';
import type { Citation } from './types';
import type { CodeRun } from './use-turn-records';

export interface Provenance {
  readonly messageId: string;
  readonly conversationId: string;
  readonly model: string;
  readonly provider: string;
  readonly sampling: { temperature: number | null; topP: number | null; topK: number | null };
  readonly agentRevision: number | null;
  readonly systemPromptSha256: string;
  readonly sources: readonly (Citation & { score?: number })[];
  readonly toolCalls: readonly { name: string; arguments: string | null; ok: boolean; sources: number[] }[];
  readonly checkpointId: string | null;
  readonly contextItems?: readonly { kind: string; id: string; version: number; versionId?: string }[];
  readonly createdAt: string;
}

const In = ({ href, children }: { href: string; children: ComponentChildren }) => (
  <a href={href} onClick={linkTo(href)}>
    {children}
  </a>
);
const audit = (id: string) => `/audit?resourceId=${encodeURIComponent(id)}`;
const short = (hash: string) => hash.replace(/^sha256[:-]/, '').slice(0, 12);
const sampled = (value: number | null) => (value === null ? t('whyDefault') : String(value));

// Over 100 lines on purpose: one read-only description list of an answer's provenance, a section a kind.
export function ProvenanceView({
  agentId,
  provenance: p,
  cited,
  runs,
}: {
  agentId: string;
  provenance: Provenance;
  /** The indexes the answer cites. */
  cited: readonly number[];
  /** The code this answer ran (its run_code calls' results). */
  runs: readonly CodeRun[];
}) {
  const asOf = `/agent/${agentId}/history?asOf=${encodeURIComponent(p.createdAt)}`;
  const items = p.contextItems ?? [];
  let run = 0;
  return (
    <div class="provenance">
      <dl>
        <dt>{t('whyModel')}</dt>
        <dd>
          {p.model} ({p.provider})
        </dd>
        <dt>{t('whyAgent')}</dt>
        <dd>
          <In href={asOf}>
            {p.agentRevision === null ? t('whyAgentThen') : t('whyRevision', { n: String(p.agentRevision) })}
          </In>
          {' · '}
          {t('whyPromptHash')} <code title={p.systemPromptSha256}>{short(p.systemPromptSha256)}</code>
        </dd>
        <dt>{t('whySampling')}</dt>
        <dd>
          temperature {sampled(p.sampling.temperature)}, top_p {sampled(p.sampling.topP)}, top_k{' '}
          {sampled(p.sampling.topK)}
        </dd>
        <dt>{t('whyAnswered')}</dt>
        <dd>{dateTime(p.createdAt)}</dd>
        <dt>{t('whyHistory')}</dt>
        <dd>{p.checkpointId ? t('whyCompacted') : t('whyWholeHistory')}</dd>
      </dl>
      <h3>{t('whySources')}</h3>
      {p.sources.length === 0 ? (
        <p>{t('whyNoSources')}</p>
      ) : (
        <ul class="why-sources">
          {p.sources.map((source) => (
            <li key={`${source.documentId}-${source.start}`}>
              <strong>{source.documentName}</strong>{' '}
              {t('whyDocumentVersion', { n: String(source.documentVersion ?? '?') })}
              {source.sectionPath.length > 0 && <> · {source.sectionPath.join(' › ')}</>}
              {cited.includes(source.index) && <> · {t('whyCited', { n: String(source.index) })}</>}
              <br />
              <span class="muted">
                {t('whyContentHash')}{' '}
                <code title={source.contentHash}>{short(source.contentHash ?? '')}</code>
                {' · '}
                <In href={audit(source.documentId)}>{t('whyAuditTrail')}</In>
              </span>
            </li>
          ))}
        </ul>
      )}
      <h3>{t('whyContext')}</h3>
      {items.length === 0 ? (
        <p>{t('whyNoContext')}</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={`${item.kind}-${item.id}`}>
              {item.kind === 'memory' ? (
                <In href="/memories">{t('whyMemory', { n: String(item.version) })}</In>
              ) : item.kind === 'skill' ? (
                <In href={`/agent/${agentId}/settings`}>{t('whySkill', { n: String(item.version) })}</In>
              ) : (
                `${item.kind} ${item.version}`
              )}{' '}
              <code>{item.id}</code> · <In href={audit(item.id)}>{t('whyAuditTrail')}</In>
            </li>
          ))}
        </ul>
      )}
      <h3>{t('whyTools')}</h3>
      {p.toolCalls.length === 0 ? (
        <p>{t('whyNoTools')}</p>
      ) : (
        <ol class="why-tools">
          {p.toolCalls.map((call, i) => {
            const result = call.name === 'run_code' ? runs[run++] : undefined;
            return (
              <li key={i}>
                <strong>{call.name}</strong> {call.ok ? t('whyToolOk') : t('whyToolFailed')}
                <pre>{call.arguments ?? t('whyArgumentsErased')}</pre>
                {result ? (
                  <pre class="output">{result.output || t('codeNoOutput')}</pre>
                ) : call.sources.length > 0 ? (
                  <p>{t('whyToolSources', { list: call.sources.map((n) => `[${n}]`).join(' ') })}</p>
                ) : null}
              </li>
            );
          })}
        </ol>
      )}
      <p>
        <In href={audit(p.conversationId)}>{t('whyConversationAudit')}</In>
      </p>
    </div>
  );
}
