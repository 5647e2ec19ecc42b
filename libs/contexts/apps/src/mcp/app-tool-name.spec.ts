import { appToolName, isAppToolName } from './app-tool-name.js';

const APP = 'app_0123456789abcdef0123456789abcdef';

describe("an App tool's name as a model sees it", () => {
  it('is <appId>__<toolName> when that is a valid name', () => {
    expect(appToolName(APP, 'echo')).toBe(`${APP}__echo`);
    expect(appToolName(APP, 'get-sum')).toBe(`${APP}__get-sum`);
  });

  it('replaces other characters and keeps long names at 64, unique by a hash of the whole', () => {
    const dotted = appToolName(APP, 'files.read');
    expect(dotted).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(dotted).not.toBe(appToolName(APP, 'files_read'));
    const long = appToolName(APP, 'trigger-long-running-operation');
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(long).not.toBe(appToolName(APP, 'trigger-long-running-operation-2'));
    expect(appToolName(APP, 'trigger-long-running-operation')).toBe(long);
  });

  it('is told apart from built-in tools', () => {
    expect(isAppToolName(appToolName(APP, 'echo'))).toBe(true);
    for (const builtIn of ['search_knowledge', 'run_code', 'load_skill', 'get_weather'])
      expect(isAppToolName(builtIn)).toBe(false);
  });
});
