// The chat's side of an MCP App view (the ext-apps host bridge, loaded with the view's own chunk, never with the
// chat's first JavaScript): one AppBridge per view over postMessage to that iframe's window only. A message is taken
// only when its source is that window and its origin the opaque one ('null': the view is served in a CSP sandbox
// without allow-same-origin), anything else is stopped before the bridge sees it. The bridge gives the view its
// tool's input and result once it is initialized, and hands the view's requests to the chat: a tool call (made
// through the platform's route, under the person's approval), a message (put into the message box, never sent by
// the view), a link (opened only when the person clicks it), a new size.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ViewHost {
  /** The view asked for a tool call: the MCP result to give it. */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The view's message, as text, for the message box. */
  insert(text: string): void;
  /** A link the view asks to open (http or https). */
  offerLink(url: string): void;
  resize(height: number): void;
}

export interface ViewCall {
  readonly arguments: Record<string, unknown>;
  readonly result: unknown;
}

const OPAQUE = 'null';

/** Connects a bridge to the view in `frame`; the returned function ends it. */
export async function hostView(
  frame: HTMLIFrameElement,
  call: ViewCall,
  host: ViewHost,
): Promise<() => void> {
  const view = frame.contentWindow;
  if (!view) throw new Error('the view has no window');
  // Registered first and in the capture phase: it runs before the transport's own listener on the same window.
  const foreign = (event: MessageEvent) => {
    if (event.source === view && event.origin !== OPAQUE) event.stopImmediatePropagation();
  };
  window.addEventListener('message', foreign, true);
  const bridge = new AppBridge(
    null,
    { name: 'Agent Platform', version: '1' },
    { openLinks: {}, serverTools: {}, message: { text: {} } },
    { hostContext: { displayMode: 'inline', availableDisplayModes: ['inline'] } },
  );
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: call.arguments });
    if (call.result) void bridge.sendToolResult(call.result as CallToolResult);
  };
  bridge.oncalltool = async ({ name, arguments: args }) => host.callTool(name, args ?? {});
  bridge.onmessage = async ({ content }) => {
    const text = content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n')
      .trim();
    if (!text) return { isError: true };
    host.insert(text);
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    if (!/^https?:\/\//i.test(url)) return { isError: true };
    host.offerLink(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === 'number' && Number.isFinite(height)) host.resize(height);
  };
  await bridge.connect(new PostMessageTransport(view, view));
  return () => {
    window.removeEventListener('message', foreign, true);
    void bridge.close();
  };
}
