// The floating chat bubble: `<script src="https://instance/embed/bubble.js" data-agent="agt_…">` adds a round button
// at the bottom right that opens the Agent's embed page (its header shows the Agent's Embed window title).
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
      if (!agentId) return;
      const button = document.createElement('button');
      button.type = 'button';
      // A speech-bubble icon drawn as SVG: no emoji font needed on the host's machine.
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      svg.setAttribute('viewBox', '0 0 24 24');
      svg.setAttribute('width', '26');
      svg.setAttribute('height', '26');
      svg.setAttribute('aria-hidden', 'true');
      const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
      path.setAttribute(
        'd',
        'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z',
      );
      path.setAttribute('fill', 'currentColor');
      svg.append(path);
      button.append(svg);
      button.setAttribute('aria-label', script.dataset.label ?? 'Open chat');
      button.setAttribute('aria-expanded', 'false');
      Object.assign(button.style, {
        position: 'fixed',
        right: '20px',
        bottom: '20px',
        width: '56px',
        height: '56px',
        borderRadius: '50%',
        border: '0',
        background: '#1f4fd1',
        color: '#fff',
        fontSize: '24px',
        cursor: 'pointer',
        zIndex: '2147483646',
      });
      let frame: HTMLIFrameElement | null = null;
      button.addEventListener('click', () => {
        if (!frame) {
          frame = document.createElement('iframe');
          frame.src = `${origin}/embed/${encodeURIComponent(agentId)}?mode=bubble`;
          frame.title = script.dataset.title ?? 'Chat';
          Object.assign(frame.style, {
            position: 'fixed',
            right: '20px',
            bottom: '88px',
            width: '370px',
            height: '520px',
            maxHeight: 'calc(100vh - 110px)',
            border: '1px solid #ccd',
            borderRadius: '12px',
            background: '#fff',
            zIndex: '2147483647',
          });
          document.body.appendChild(frame);
          keepFor(frame);
        } else frame.hidden = !frame.hidden;
        button.setAttribute('aria-expanded', String(!frame.hidden));
      });
      document.body.appendChild(button);
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
    else mount();
  }
})();

export {};
