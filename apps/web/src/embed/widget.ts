// The inline widget: `<script src="https://instance/embed/widget.js" data-agent="agt_…" data-target="#el">` renders
// the Agent's embed page into the element (an iframe: the chat runs on the instance's origin, under its CSP).
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  if (script) {
    const origin = new URL(script.src).origin;
    const agentId = script.dataset.agent ?? '';
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
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
    else mount();
  }
})();

export {};
