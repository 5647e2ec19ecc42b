// Dates and times as the web app shows them: in the page's language and the browser's time zone, one formatter per
// kind of moment, so that the same moment reads the same on every page.
import { language } from './i18n';

/** An ISO 8601 time, epoch milliseconds or a Date. */
type Moment = string | number | Date;

const asDate = (moment: Moment) => (moment instanceof Date ? moment : new Date(moment));

// Building an Intl formatter costs more than formatting with one, and a page formats a time per row.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language()} ${JSON.stringify(options)}`;
  let found = formatters.get(key);
  if (!found) formatters.set(key, (found = new Intl.DateTimeFormat(language(), options)));
  return found;
}

/** A moment, to the minute ("Nov 26, 2026, 9:12 AM", "26.11.2026, 09:12"): what every "when" uses. */
export const dateTime = (moment: Moment): string =>
  formatter({ dateStyle: 'medium', timeStyle: 'short' }).format(asDate(moment));

/** A moment to the second, where the order of a minute's events matters (the audit timeline). */
export const preciseDateTime = (moment: Moment): string =>
  formatter({ dateStyle: 'medium', timeStyle: 'medium' }).format(asDate(moment));

/** A moment with its weekday, for one ahead that a person plans around (a limit's reset). */
export const fullDateTime = (moment: Moment): string =>
  formatter({ dateStyle: 'full', timeStyle: 'short' }).format(asDate(moment));

/** A UTC day (`2026-11-26`) as its day and month ("Nov 26"): the usage charts count by UTC day. */
export const utcDayAndMonth = (day: string): string =>
  formatter({ day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** "in 3 days", "in 5 hours", "10 minutes ago": how far a moment is from now. */
export function fromNow(moment: Moment, now = Date.now()): string {
  const format = new Intl.RelativeTimeFormat(language(), { numeric: 'auto' });
  const minutes = Math.round((asDate(moment).getTime() - now) / 60_000);
  if (Math.abs(minutes) >= 24 * 60) return format.format(Math.round(minutes / (24 * 60)), 'day');
  if (Math.abs(minutes) >= 60) return format.format(Math.round(minutes / 60), 'hour');
  return format.format(minutes, 'minute');
}

/** A `datetime-local` input's value for a moment: its date and time in the browser's zone, to the minute. */
export const localInputValue = (moment: Moment): string => {
  const at = asDate(moment);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
