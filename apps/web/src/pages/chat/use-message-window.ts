// The chat's windowed message list: which of a conversation's messages are in the page (those on screen and a few
// rows either side, measured as they render), where the page scrolls when a conversation opens (its end, or the
// message a link names with `?m=`), and the streamed answer kept in view while the person has not scrolled up.
//
// The page itself scrolls (the composer is sticky at its bottom), so the virtualizer follows the window and the list's
// distance from the document's top is its scroll margin. Rows stay in the document's flow between two paddings that
// stand for the rows not rendered: no absolute positioning, so a row's margins, focus outline and text selection
// behave as in any list.
//
// What windowing costs: the browser's find-in-page sees only the rendered rows of a long conversation (the
// conversation list's search looks through every message on the server), and a screen reader's list navigation
// reaches the rendered rows (each says its place, `aria-posinset` of `aria-setsize`). A conversation under
// ALL_ROWS_BELOW messages renders every row, so neither limit applies to most conversations.
import {
  defaultRangeExtractor,
  measureElement,
  observeWindowOffset,
  observeWindowRect,
  Virtualizer,
  windowScroll,
  type Range,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import { distanceFromEnd, jumpToEdge, linkedMessage } from './page-scroll';
import type { ChatMessage } from './types';

/** Below this many messages every row is rendered: cheap enough, and find-in-page keeps working. */
export const ALL_ROWS_BELOW = 50;
/** Rows rendered beyond each edge of the screen: the next Tab stop is in the page before focus reaches it. */
const OVERSCAN = 4;
/** A row's height before any is measured: about a question with its actions. */
const FIRST_ESTIMATE_PX = 150;
/** How close to the conversation's end counts as at its end (a wheel's notch is about 100 px). */
const AT_END_PX = 48;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Over 100 lines on purpose: the virtualizer's wiring to Preact and the scroll rules of a chat belong together.
export function useMessageWindow(messages: readonly ChatMessage[]) {
  const list = useRef<HTMLOListElement>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [layout, setLayout] = useState({ scrollMargin: 0, gap: 0 });
  // Whether the page follows the conversation's end: while the page is at the end (scrolled there, or opened
  // there), not once the person scrolls away from it. Content growing at the end is followed before the next scroll
  // event reads the distance (the layout effect below runs in the same task as the render).
  const pinned = useRef(!linkedMessage());
  // The row holding focus stays rendered when it scrolls off screen, or focus would fall back to the page's body.
  const focused = useRef<number | null>(null);
  // Rows not yet measured are estimated at the measured rows' mean: the page's height, and where End and the
  // scroll bar lead, are then close to the truth before the rows are rendered.
  const measured = useRef({ sizes: new Map<number, number>(), sum: 0 });

  // Rows are keyed by place (the virtualizer's default), not by message id: the stored turn that replaces a streamed
  // one keeps its rows' sizes (a new id would be measured anew, and a row above the screen would move the page).
  // Another conversation's sizes, kept at the same places, serve as estimates until its rows are measured.
  const options = {
    count: messages.length,
    getScrollElement: () => window,
    estimateSize: () => {
      const { sizes, sum } = measured.current;
      return sizes.size ? sum / sizes.size : FIRST_ESTIMATE_PX;
    },
    observeElementRect: observeWindowRect,
    observeElementOffset: observeWindowOffset,
    scrollToFn: windowScroll,
    measureElement: (
      element: HTMLLIElement,
      entry: ResizeObserverEntry | undefined,
      instance: Virtualizer<Window, HTMLLIElement>,
    ) => {
      const size = measureElement(element, entry, instance);
      const { sizes } = measured.current;
      const index = instance.indexFromElement(element);
      measured.current.sum += size - (sizes.get(index) ?? 0);
      sizes.set(index, size);
      return size;
    },
    initialOffset: () => window.scrollY,
    overscan: OVERSCAN,
    // A linked message is shown with a little of the one before it, not flush with the screen's top.
    scrollPaddingStart: 16,
    scrollMargin: layout.scrollMargin,
    gap: layout.gap,
    rangeExtractor: (visible: Range) => {
      if (visible.count < ALL_ROWS_BELOW) return range(0, visible.count - 1);
      const indexes = defaultRangeExtractor(visible);
      const keep = focused.current;
      return keep !== null && keep < visible.count && !indexes.includes(keep)
        ? [...indexes, keep].sort((a, b) => a - b)
        : indexes;
    },
    onChange: () => rerender(0),
  };
  const [virtualizer] = useState(() => new Virtualizer<Window, HTMLLIElement>(options));
  // A row above the screen that changes size (its actions shown once a turn ends, a stored question replacing the one
  // sent) moves the page by as much, whichever way the person last scrolled, so what they read stays put; a row
  // across the screen's top grows below what they read, and moves nothing.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) => {
    const offset = instance.scrollOffset ?? 0;
    return instance.itemSizeCache.has(item.key) ? item.end <= offset : item.start < offset;
  };
  virtualizer.setOptions(options);

  useLayoutEffect(() => {
    const unmount = virtualizer._didMount();
    const scrolled = () => {
      if (list.current) pinned.current = distanceFromEnd(list.current) <= AT_END_PX;
    };
    const pressed = (event: KeyboardEvent) => {
      const edge = list.current && jumpToEdge(event, list.current);
      if (edge) pinned.current = edge === 'end';
    };
    window.addEventListener('scroll', scrolled, { passive: true });
    window.addEventListener('keydown', pressed);
    return () => {
      window.removeEventListener('scroll', scrolled);
      window.removeEventListener('keydown', pressed);
      unmount();
    };
  }, []);

  // A conversation opened (its first message is another one): show its end, or the message a link names.
  const opened = messages[0]?.id ?? null;
  useLayoutEffect(() => {
    const linked = linkedMessage();
    const index = linked ? messages.findIndex((m) => m.id === linked) : -1;
    pinned.current = index < 0;
    if (index >= 0) virtualizer.scrollToIndex(index, { align: 'start' });
  }, [opened]);

  useLayoutEffect(() => {
    virtualizer._willUpdate();
    const element = list.current;
    if (!element) return;
    // What is above the list (the header, the Agent's App views) moves it down the page; the rows' gap is the CSS's.
    const scrollMargin = Math.round(element.getBoundingClientRect().top + window.scrollY);
    const gap = parseFloat(getComputedStyle(element).rowGap) || 0;
    if (scrollMargin !== layout.scrollMargin || gap !== layout.gap) setLayout({ scrollMargin, gap });
    // Rows measured, an answer streamed in, a question appended: the end stays in view while it is followed.
    const below = distanceFromEnd(element);
    if (pinned.current && below > 0) window.scrollBy(0, below);
  });

  // The person sent a question (its answer is on the way): they want to see it, wherever they had scrolled to.
  const newest = messages.at(-1)?.id;
  useLayoutEffect(() => {
    if (newest !== 'pending-answer' || !list.current) return;
    pinned.current = true;
    window.scrollBy(0, Math.max(distanceFromEnd(list.current), 0));
  }, [newest]);

  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  const style =
    first && last
      ? {
          paddingTop: `${first.start - layout.scrollMargin}px`,
          paddingBottom: `${virtualizer.getTotalSize() - (last.end - layout.scrollMargin)}px`,
        }
      : undefined;

  return {
    list,
    style,
    // New messages are announced as they arrive at the followed end; rows the window adds as the person scrolls
    // through a long conversation are not news, and would be read out as if they were.
    live: messages.length < ALL_ROWS_BELOW || pinned.current ? ('polite' as const) : ('off' as const),
    rows: items.flatMap((item) => {
      const message = messages[item.index];
      return message ? [{ index: item.index, message }] : [];
    }),
    /** A rendered row's attributes: measured as it renders and resizes, and its place in the whole conversation. */
    row: (index: number, id: string) => ({
      ref: virtualizer.measureElement,
      'data-index': index,
      'aria-posinset': index + 1,
      'aria-setsize': messages.length,
      'data-linked': id === linkedMessage() ? 'true' : undefined,
      onFocusIn: () => (focused.current = index),
      onFocusOut: () => (focused.current = null),
    }),
  };
}
