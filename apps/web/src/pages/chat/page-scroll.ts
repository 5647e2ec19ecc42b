// Where the chat page is scrolled to in its conversation: how far above the end, the message a link names, and the
// Home and End keys. The chat scrolls the page itself (its composer sticks to the screen's bottom).

/** Where Home and End mean something else (a caret, a list's options, a dialog's content). */
const KEYS_OF_THEIR_OWN =
  'input, textarea, select, [contenteditable], dialog, [role="listbox"], [role="menu"], [role="tablist"], [role="grid"]';

/** The message a link asks to show (`?m=<message id>`, e.g. from "Which answers used this"). */
export const linkedMessage = (): string | null => new URLSearchParams(location.search).get('m');

/**
 * How far the page is scrolled above the conversation's end: the bottom of the thread that holds the list (the
 * composer included). Not the document's end: on a phone the conversation list follows the thread.
 */
export const distanceFromEnd = (list: HTMLElement): number =>
  (list.parentElement ?? list).getBoundingClientRect().bottom - window.innerHeight;

/**
 * Home and End go to the conversation's start and end at once, and say which (null: another key, or one that is not
 * the page's). The browser's smooth scroll would stop short of a windowed list's ends: rows measured on the way
 * change the page's height, and correcting the position ends the animation.
 */
export function jumpToEdge(event: KeyboardEvent, list: HTMLElement): 'start' | 'end' | null {
  if ((event.key !== 'Home' && event.key !== 'End') || event.defaultPrevented) return null;
  if ((event.target as HTMLElement | null)?.closest?.(KEYS_OF_THEIR_OWN)) return null;
  event.preventDefault();
  if (event.key === 'Home') {
    window.scrollTo({ top: 0, behavior: 'instant' });
    return 'start';
  }
  window.scrollBy({ top: Math.max(distanceFromEnd(list), 0), behavior: 'instant' });
  return 'end';
}
