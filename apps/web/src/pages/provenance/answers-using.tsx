// "Which answers used this": the answers that used a document, a memory or a Skill version (GET /provenance, as far as
// the viewer may see them: admins every answer, anyone else their own), opened on demand, each with when, the
// version it used, whether it cited it, and a link to the answer in its conversation (one's own, while it still
// exists).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { dateTime } from '../../dates';
import { t } from '../../i18n';

interface Answer {
  readonly conversationId: string;
  readonly messageId: string;
  readonly at: string;
  readonly userId: string;
  readonly agentId: string;
  readonly version: string;
  readonly cited: boolean;
  readonly messageDeleted: boolean;
  readonly conversationDeleted: boolean;
}

/** Who is signed in, asked once per page load: an answer links to its conversation only for its own user. */
let signedIn: Promise<string | null> | null = null;
const myId = () =>
  (signedIn ??= api<{ id: string }>('GET', 'users/me').then(
    (me) => me.id,
    () => null,
  ));

function AnswerItem({ answer, me }: { answer: Answer; me: string | null }) {
  const gone = answer.messageDeleted || answer.conversationDeleted;
  const link =
    `/chat/${encodeURIComponent(answer.agentId)}?c=${encodeURIComponent(answer.conversationId)}` +
    `&m=${encodeURIComponent(answer.messageId)}`;
  return (
    <li>
      {dateTime(answer.at)} — {t('answersVersion', { version: answer.version })}
      {!answer.cited && ` (${t('answersUncited')})`}{' '}
      {gone ? (
        <span class="note">{t('answersDeleted')}</span>
      ) : answer.userId === me ? (
        <a href={link}>{t('answersOpen')}</a>
      ) : (
        <span class="note">{t('answersSomeoneElse')}</span>
      )}
    </li>
  );
}

/** `source`: `document:<id>`, `memory:<id>` or `skill:<id>@<number>` (the provenance route's forms). */
export function AnswersUsing({ source, label }: { source: string; label: string }) {
  const [me, setMe] = useState<string | null>(null);
  useEffect(() => void myId().then(setMe), []);
  const [answers, setAnswers] = useState<readonly Answer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    void api<{ data: Answer[] }>(
      'GET',
      `provenance?source=${encodeURIComponent(source)}&retrieved=true&limit=50`,
    ).then(
      (page) => setAnswers(page.data),
      (failure: unknown) => setError(errorSentence(failure)),
    );
  return (
    <details
      class="answers-using"
      onToggle={(e) => {
        if ((e.target as HTMLDetailsElement).open && answers === null) load();
      }}
    >
      <summary>{t('answersUsing', { what: label })}</summary>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {answers && answers.length === 0 && <p>{t('answersNone')}</p>}
      {answers && answers.length > 0 && (
        <ul>
          {answers.map((answer) => (
            <AnswerItem key={answer.messageId + answer.version} answer={answer} me={me} />
          ))}
        </ul>
      )}
    </details>
  );
}
