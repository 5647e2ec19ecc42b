// The system prompt's CodeMirror editor (Markdown highlighting, line wrapping, undo/redo, search), a chunk of its own
// that only the Agent's settings page loads. It lives in a shadow root: CodeMirror's styles are then constructable
// stylesheets adopted by that root, which the page's CSP (`style-src 'self'`, no inline <style>) allows, where in the
// document itself they would be a <style> element it refuses. The app's theme colours reach it as inherited custom
// properties (styles.css), so light and dark follow the page. Tab is not bound (it moves the focus on, as everywhere
// in the app); CodeMirror's own words (search panel, folding) are translated.
import { markdown } from '@codemirror/lang-markdown';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { tags } from '@lezer/highlight';
import { basicSetup, EditorView } from 'codemirror';

export interface PromptEditorOptions {
  readonly value: string;
  readonly label: string;
  readonly readOnly: boolean;
  readonly german: boolean;
  readonly limit: number;
  readonly onChange: (value: string) => void;
}

export interface PromptEditorHandle {
  /** Replaces the text when it differs (a save or a reset from outside); the editor's history is kept. */
  setValue(value: string): void;
  /** Puts `text` where the cursor is (over the selection) and focuses the editor. */
  insert(text: string): void;
  configure(options: Pick<PromptEditorOptions, 'label' | 'readOnly' | 'german'>): void;
  focus(): void;
  destroy(): void;
}

/** CodeMirror's own phrases (keyed by its English) for a German page. */
const GERMAN: Record<string, string> = {
  Find: 'Suchen',
  Replace: 'Ersetzen',
  next: 'weiter',
  previous: 'zurück',
  all: 'alle',
  'match case': 'Groß-/Kleinschreibung',
  regexp: 'regulärer Ausdruck',
  'by word': 'ganzes Wort',
  replace: 'ersetzen',
  'replace all': 'alle ersetzen',
  close: 'schließen',
  'current match': 'aktueller Treffer',
  'on line': 'in Zeile',
  'replaced $ matches': '$ Treffer ersetzt',
  'replaced match on line $': 'Treffer in Zeile $ ersetzt',
  'Go to line': 'Gehe zu Zeile',
  go: 'los',
  'Folded lines': 'Eingeklappte Zeilen',
  'Unfolded lines': 'Ausgeklappte Zeilen',
  to: 'bis',
  'folded code': 'eingeklappter Text',
  unfold: 'ausklappen',
  'Fold line': 'Zeile einklappen',
  'Unfold line': 'Zeile ausklappen',
  'Selection deleted': 'Auswahl gelöscht',
  'Control character': 'Steuerzeichen',
  Completions: 'Vorschläge',
};

/** Markdown's marks in the app's colours (custom properties, so one style serves both themes). */
const highlight = HighlightStyle.define([
  { tag: tags.heading, fontWeight: 'bold', color: 'var(--accent)' },
  { tag: tags.strong, fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: [tags.link, tags.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: [tags.monospace, tags.quote], color: 'var(--muted)' },
  { tag: [tags.processingInstruction, tags.meta, tags.contentSeparator], color: 'var(--muted)' },
]);

const theme = EditorView.theme({
  '&': {
    color: 'var(--ink)',
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--muted)',
    borderRadius: '6px',
    fontSize: '0.9rem',
  },
  '&.cm-focused': { outline: '3px solid var(--accent)', outlineOffset: '2px' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    minHeight: '12rem',
    maxHeight: '32rem',
    lineHeight: '1.5',
  },
  '.cm-content': { caretColor: 'var(--ink)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--ink)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--user-bubble)',
  },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--soft)' },
  '.cm-gutters': {
    backgroundColor: 'var(--soft)',
    color: 'var(--muted)',
    borderRight: '1px solid var(--line)',
  },
  '.cm-panels': { backgroundColor: 'var(--soft)', color: 'var(--ink)' },
  '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--line)' },
  '.cm-textfield': {
    color: 'var(--ink)',
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--muted)',
  },
  '.cm-button': { color: 'var(--accent-ink)', backgroundColor: 'var(--accent)', backgroundImage: 'none' },
  '.cm-panel button[name=close]': { color: 'var(--ink)' },
  '.cm-searchMatch': { backgroundColor: 'var(--user-bubble)', outline: '1px solid var(--accent)' },
  '.cm-selectionMatch': { backgroundColor: 'var(--soft)' },
  ':focus-visible': { outline: '3px solid var(--accent)' },
});

const settings = ({
  label,
  readOnly,
  german,
}: Pick<PromptEditorOptions, 'label' | 'readOnly' | 'german'>) => [
  EditorState.readOnly.of(readOnly),
  EditorView.editable.of(!readOnly),
  EditorView.contentAttributes.of({
    'aria-label': label,
    'aria-multiline': 'true',
    spellcheck: 'true',
    ...(readOnly ? { 'aria-readonly': 'true' } : {}),
  }),
  german ? EditorState.phrases.of(GERMAN) : [],
];

export function mountPromptEditor(host: HTMLElement, options: PromptEditorOptions): PromptEditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const parent = document.createElement('div');
  root.replaceChildren(parent);
  const configurable = new Compartment();
  const extensions: Extension[] = [
    basicSetup,
    markdown(),
    syntaxHighlighting(highlight),
    EditorView.lineWrapping,
    theme,
    configurable.of(settings(options)),
    // Over the limit: the change is refused (as a text area's maxlength does).
    EditorState.transactionFilter.of((tr) => (tr.docChanged && tr.newDoc.length > options.limit ? [] : tr)),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ doc: options.value, extensions, root, parent });
  return {
    setValue(value) {
      if (value !== view.state.doc.toString())
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    insert(text) {
      view.dispatch(view.state.replaceSelection(text), { scrollIntoView: true });
      view.focus();
    },
    configure(next) {
      view.dispatch({ effects: configurable.reconfigure(settings(next)) });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
