// The inline widget: `<script src="https://instance/embed/widget.js" data-agent="agt_…" data-target="#el">` renders
// the Agent's embed page into the element (an iframe: the chat runs on the instance's origin, under its CSP).
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  if (script) {
    const origin = new URL(script.src).origin;
    const agentId = script.dataset.agent ?? '';
    // (Repeated in widget.ts and bubble.ts on purpose: each is a classic script loaded alone by the host page, so
    // neither may import a shared chunk.) Keeps the chat's visit in this page's sessionStorage for the embed page when its own is blocked (third-party
    // storage): only for messages of its own frame, from the instance's origin.
    const keepFor = (frame: HTMLIFrameElement) => {
      const key = `agent-embed:${agentId}`;
      addEventListener('message', (event: MessageEvent) => {
        if (event.source !== frame.contentWindow || event.origin !== origin) return;
        const data = event.data as { type?: string; agentId?: string; value?: unknown };
        if (data?.agentId !== agentId) return;
        try {
          if (data.type === 'agent-embed:read')
            frame.contentWindow?.postMessage(
              { type: 'agent-embed:kept', agentId, value: JSON.parse(sessionStorage.getItem(key) ?? 'null') },
              origin,
            );
          else if (data.type === 'agent-embed:keep')
            if (data.value) sessionStorage.setItem(key, JSON.stringify(data.value));
            else sessionStorage.removeItem(key);
        } catch {
          // storage unavailable here too: nothing is kept
        }
      });
    };
    const mount = () => {
      const target = document.querySelector(script.dataset.target ?? '') ?? script.parentElement;
      if (!target || !agentId) return;
      const frame = document.createElement('iframe');
      frame.src = `${origin}/embed/${encodeURIComponent(agentId)}?mode=widget`;
      frame.title = script.dataset.title ?? 'Chat';
      frame.style.border = '0';
      frame.style.width = '100%';
      frame.style.height = script.dataset.height ?? '600px';
      target.appendChild(frame);
      keepFor(frame);
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
    else mount();
  }
})();

export {};
