// The floating chat bubble: `<script src="https://instance/embed/bubble.js" data-agent="agt_…">` adds a round button
// at the bottom right that opens the Agent's embed page (its header shows the Agent's Embed window title).
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  if (script) {
    const origin = new URL(script.src).origin;
    const agentId = script.dataset.agent ?? '';
    const mount = () => {
      if (!agentId) return;
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = '💬';
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
