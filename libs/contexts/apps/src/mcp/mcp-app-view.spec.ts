import { modelMayCall, toolUi, viewCsp, viewMayCall, viewResult } from './mcp-app-view.js';

describe('MCP App views', () => {
  it("reads a tool's view in the nested and the older flat form, and only ui:// URIs", () => {
    expect(toolUi({ ui: { resourceUri: 'ui://clock/app.html' } })).toEqual({
      resourceUri: 'ui://clock/app.html',
    });
    expect(toolUi({ 'ui/resourceUri': 'ui://clock/app.html' })).toEqual({
      resourceUri: 'ui://clock/app.html',
    });
    expect(toolUi({ ui: { resourceUri: 'https://example.com/app.html' } })).toBeUndefined();
    expect(toolUi({ ui: { visibility: ['app', 'everyone'] } })).toEqual({ visibility: ['app'] });
    expect(toolUi(undefined)).toBeUndefined();
  });

  it('offers the model no tool visible to views only, and views no tool visible to the model only', () => {
    const tool = (visibility?: ('model' | 'app')[]) => ({
      name: 't',
      description: '',
      inputSchema: {},
      ...(visibility ? { ui: { visibility } } : {}),
    });
    expect([modelMayCall(tool()), viewMayCall(tool())]).toEqual([true, true]);
    expect([modelMayCall(tool(['app'])), viewMayCall(tool(['app']))]).toEqual([false, true]);
    expect([modelMayCall(tool(['model'])), viewMayCall(tool(['model']))]).toEqual([true, false]);
  });

  it("sandboxes a view and lets it reach only its declared domains, never the platform's origin", () => {
    const bare = viewCsp(undefined, 'https://platform.example');
    expect(bare).toMatch(/^sandbox allow-scripts allow-forms; default-src 'none'; /);
    expect(bare).not.toContain('allow-same-origin');
    expect(bare).toContain("connect-src 'none'");
    expect(bare).toContain("frame-src 'none'");
    expect(bare).toContain("script-src 'unsafe-inline';");

    const declared = viewCsp(
      {
        ui: {
          csp: {
            connectDomains: [
              'https://api.example.com',
              'https://platform.example',
              "'self'",
              'x; script-src *',
            ],
            resourceDomains: ['https://*.cdn.example.com'],
            frameDomains: ['https://player.example.com/'],
          },
        },
      },
      'https://platform.example',
    );
    expect(declared).toContain('connect-src https://api.example.com;');
    expect(declared).toContain("script-src 'unsafe-inline' https://*.cdn.example.com;");
    expect(declared).toContain('frame-src https://player.example.com;');
    expect(declared).not.toContain('platform.example');
    expect(declared).not.toContain("'self';");
  });

  it('gives a view the structured content unless it passes the cap', () => {
    expect(JSON.parse(viewResult({ text: 'now', structured: { time: 'now' } }, 1000))).toEqual({
      content: [{ type: 'text', text: 'now' }],
      structuredContent: { time: 'now' },
    });
    expect(JSON.parse(viewResult({ text: 'now', structured: { big: 'x'.repeat(2000) } }, 1000))).toEqual({
      content: [{ type: 'text', text: 'now' }],
    });
  });
});
