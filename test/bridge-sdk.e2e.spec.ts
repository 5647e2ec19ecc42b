// The "Done when" as a new user would check it, with the bridge SDK from its packed tarball: `npm pack` of
// libs/bridge-sdk installs into an empty folder and type-checks a sample; an App (a small server on loopback with a
// /meta) is registered globally; its view, opened by a signed-in person through the proxy, receives the
// svc_session_token; the App's own code (a child process using the installed SDK) then calls agent.getAgent,
// conversation.findMany (no incognito, no private, no bodies), llm.generateText, the tag operations and
// transcribe(generateSpeech(...)); an Agent outside the allowlist is 403; a standalone bridge throws on
// agent.getAgent without a request.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const ROOT = resolve(import.meta.dirname, '..');
const PASSWORD = 'a long passphrase for the sdk';

/** The App's own code, run with the SDK as an App would install it. */
const APP_CODE = `
import { createBridge, BridgeError, StandaloneScopeError } from '@agent-platform/bridge-sdk';
const { TOKEN, SERVER, AGENT, OUTSIDE, DOCUMENT } = process.env;
const out = {};
const bridge = createBridge({ token: TOKEN, serverUrl: SERVER, agentId: AGENT });
out.scope = bridge.scope;
out.agent = await bridge.agent.getAgent();
out.conversations = await bridge.conversation.findMany({ where: { archived: false }, orderBy: { createdAt: 'asc' } });
out.archived = await bridge.conversation.findMany({ where: { archived: true }, select: { id: true, archived: true } });
out.text = await bridge.llm.generateText({ messages: [{ role: 'user', content: 'hello from the App' }] });
out.models = await bridge.llm.getAvailableModels();
const tag = await bridge.knowledge.createTag({ name: 'from-the-app' });
const renamed = await bridge.knowledge.updateTag(tag.id, { name: 'renamed-by-app' });
await bridge.knowledge.attachTag(DOCUMENT, tag.id);
out.tagsAfterCreate = (await bridge.knowledge.listTags()).map((t) => t.name);
await bridge.knowledge.removeTag(DOCUMENT, tag.id);
await bridge.knowledge.deleteTag(tag.id);
out.tagsAfterDelete = (await bridge.knowledge.listTags()).map((t) => t.name);
out.renamed = renamed.name;
const speech = await bridge.llm.generateSpeech({ text: 'Round trip, über alles', voiceName: 'alloy' });
out.speechMime = speech.mimeType;
out.heard = await bridge.llm.transcribe({ model: 'offline-transcribe', audioBase64: speech.base64, mimeType: speech.mimeType });
try {
  await createBridge({ token: TOKEN, serverUrl: SERVER, agentId: OUTSIDE }).agent.getAgent();
  out.outside = 'answered';
} catch (error) {
  out.outside = { status: error.status, code: error.code, isBridgeError: error instanceof BridgeError, correlationId: error.correlationId };
}
const standalone = createBridge({ token: TOKEN, serverUrl: SERVER });
out.standaloneScope = standalone.scope;
try {
  await standalone.agent.getAgent();
  out.standalone = 'answered';
} catch (error) {
  out.standalone = { name: error.name, code: error.code, typed: error instanceof StandaloneScopeError };
}
try {
  await standalone.conversation.findMany();
} catch (error) {
  out.standaloneFindMany = error.code;
}
try {
  await standalone.llm.getAvailableModels();
} catch (error) {
  out.standaloneModels = error.code;
}
// What a standalone bridge may do: the model calls, with the instance-wide default models.
out.standaloneText = await standalone.llm.generateText({ messages: [{ role: 'user', content: 'no Agent here' }] });
const standaloneSpeech = await standalone.llm.generateSpeech({ text: 'standalone', voiceName: 'alloy' });
out.standaloneHeard = (await standalone.llm.transcribe({ model: 'offline-transcribe', audioBase64: standaloneSpeech.base64, mimeType: 'audio/wav' })).text;
process.stdout.write(JSON.stringify(out));
`;

const SAMPLE_TS = `
import { createBridge, type Bridge, type BridgeScope, StandaloneScopeError } from '@agent-platform/bridge-sdk';
const bridge: Bridge = createBridge({ token: 't', serverUrl: 'http://127.0.0.1:1', agentId: 'agt_1' });
const scope: BridgeScope = bridge.scope;
async function use(): Promise<string> {
  const agent = await bridge.agent.getAgent();
  const { text } = await bridge.llm.transcribe({ model: 'm', audioBase64: '', mimeType: 'audio/wav' });
  const speech = await bridge.llm.generateSpeech({ text: 'x', speakers: [{ speaker: 'A', voiceName: 'v' }] });
  const found = await bridge.conversation.findMany({ take: 5, select: { id: true } });
  return agent.name + text + speech.mimeType + found.length + scope.type + String(StandaloneScopeError.name);
}
void use;
`;

describe('the bridge SDK from its packed tarball, used by an App (e2e)', () => {
  let api: TestApi;
  let appServer: Server;
  let appUrl: string;
  const seen: IncomingHttpHeaders[] = [];
  let installed: string;

  beforeAll(async () => {
    api = await startTestApi();
    appServer = createServer((request, response) => {
      if (request.url === '/meta') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'sdk-app', name: 'SDK App', standalone: false }));
        return;
      }
      seen.push(request.headers);
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p>the App view</p>');
    });
    await new Promise<void>((done) => appServer.listen(0, '127.0.0.1', done));
    appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;

    // npm pack the SDK (built by `npm run build`), install the tarball into an empty folder.
    const packs = mkdtempSync(join(tmpdir(), 'bridge-sdk-pack-'));
    execFileSync('npm', ['pack', join(ROOT, 'libs/bridge-sdk'), '--pack-destination', packs], {
      stdio: 'pipe',
    });
    const tarball = readdirSync(packs).find((name) => name.endsWith('.tgz'))!;
    expect(tarball).toBe('agent-platform-bridge-sdk-1.2.0.tgz');
    installed = mkdtempSync(join(tmpdir(), 'bridge-sdk-app-'));
    writeFileSync(
      join(installed, 'package.json'),
      JSON.stringify({ name: 'an-app', private: true, type: 'module' }),
    );
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(packs, tarball)], {
      cwd: installed,
      stdio: 'pipe',
    });
  }, 120_000);
  afterAll(async () => {
    await api.close();
    appServer.closeAllConnections();
    appServer.close();
  });

  it('installs into an empty folder and type-checks a sample against its declarations', () => {
    writeFileSync(join(installed, 'sample.ts'), SAMPLE_TS);
    writeFileSync(
      join(installed, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['sample.ts'],
      }),
    );
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', installed], {
      stdio: 'pipe',
    });
    // And a mistake is caught: no call takes an agentId any more (1.2.0).
    writeFileSync(
      join(installed, 'sample.ts'),
      `${SAMPLE_TS}\nvoid bridge.agent.getAgent({ agentId: 'agt_2' } as never as string);\n`,
    );
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', installed], {
        stdio: 'pipe',
      }),
    ).toThrow();
  }, 120_000);

  it('an App uses its svc_session_token through the SDK: agent, conversations, text, tags, speech round trip, 403 outside, standalone throws', async () => {
    const admin = client(api.url);
    // A person, signed in (accepting the invitation signs in).
    const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, {
      email: 'sdk-person@example.com',
      role: 'member',
    });
    const accepted = await fetch(`${api.url}${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: decodeURIComponent(invitation.body.link.split('#token=')[1]!),
        name: 'Sam',
        password: PASSWORD,
      }),
    });
    const person = (await accepted.json()) as { id: string };
    const cookie = /ap_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
    const asPerson = client(api.url, null);
    const origin = { cookie, origin: api.url };

    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: 'SDK space' });
    // Space roles decide what a person reaches through an App: an editor uses the Space's Agents and changes their
    // Knowledge tags (a member's token is refused the tags: the authorization matrix).
    const member = await admin.post(`${CORE}/spaces/${space.body.id}/members`, {
      userId: person.id,
      role: 'editor',
    });
    expect(member.status).toBe(201);
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'SDK Agent',
    });
    const agentId = agent.body.id;
    const document = await admin.post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'notes.txt',
      text: 'the notes',
    });
    // The person's conversations: a normal one, a private one, an incognito one, an archived one.
    const talk = async (body: Record<string, unknown>) =>
      (
        await asPerson.post<{ conversationId: string }>(
          `${CORE}/llm/${agentId}/conversation`,
          { message: 'a message body that must not reach the App', ...body },
          origin,
        )
      ).body.conversationId;
    const normal = await talk({});
    const privateOne = await talk({ visibility: 'private' });
    const incognito = await talk({ visibility: 'incognito' });
    const archived = await talk({});
    const archiving = await fetch(`${api.url}${CORE}/llm/${agentId}/conversation/${archived}`, {
      method: 'PATCH',
      headers: { ...origin, 'content-type': 'application/json' },
      body: JSON.stringify({ archived: true }),
    });
    expect(archiving.status).toBe(200);
    await archiving.text();

    // The App, enabled globally.
    const registered = await admin.post<{ id: string; token: string }>(`${CORE}/apps`, {
      name: 'SDK App',
      source: { type: 'url', url: appUrl },
      enablement: { kind: 'global' },
    });
    expect(registered.status).toBe(201);
    // The person opens its view: the App receives the three svc_ headers.
    const view = await fetch(`${api.url}/app/${registered.body.id}/user`, { headers: { cookie } });
    expect(view.status).toBe(200);
    await view.text();
    const headers = seen.at(-1)!;
    expect(headers.svc_server_url).toBe(api.url);
    expect(headers.svc_base_path).toBe(`/app/${registered.body.id}`);
    const sessionToken = headers.svc_session_token as string;
    expect(sessionToken).toMatch(/^svc_/);

    // An Agent the person may not use (the admin's personal one): outside what the session token reaches.
    const agents = await admin.get<{ data: { id: string; isPersonal: boolean; ownerUserId: string }[] }>(
      `${CORE}/agents?limit=200`,
    );
    const outside = agents.body.data.find((a) => a.isPersonal && a.ownerUserId !== person.id)!.id;

    writeFileSync(join(installed, 'app.mjs'), APP_CODE);
    // Asynchronously: the api answering the App runs in this process.
    const { stdout: output } = await promisify(execFile)(process.execPath, [join(installed, 'app.mjs')], {
      cwd: installed,
      env: {
        ...process.env,
        TOKEN: sessionToken,
        SERVER: headers.svc_server_url as string,
        AGENT: agentId,
        OUTSIDE: outside,
        DOCUMENT: document.body.id,
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const result = JSON.parse(output) as Record<string, unknown> & {
      conversations: { id: string }[];
      archived: { id: string; archived: boolean }[];
    };
    expect(result.scope).toEqual({ type: 'agent', agentId });
    expect(result.agent).toEqual({ id: agentId, name: 'SDK Agent', model: expect.any(String) });
    const found = result.conversations.map((c) => c.id);
    expect(found).toEqual([normal]);
    expect(found).not.toContain(privateOne);
    expect(found).not.toContain(incognito);
    expect(result.archived).toEqual([{ id: archived, archived: true }]);
    // No message bodies: the fields of a conversation only (its title is derived from its first message).
    expect(Object.keys(result.conversations[0]!).sort()).toEqual(
      ['agentId', 'archived', 'createdAt', 'id', 'lastMessageAt', 'messageCount', 'title'].sort(),
    );
    expect(result.text).toMatchObject({ text: expect.any(String), model: expect.any(String) });
    expect(result.models).toMatchObject({
      defaultModel: expect.any(String),
      availableModels: expect.any(Array),
    });
    expect(result.tagsAfterCreate).toContain('renamed-by-app');
    expect(result.tagsAfterDelete).not.toContain('renamed-by-app');
    expect(result.renamed).toBe('renamed-by-app');
    expect(result.speechMime).toBe('audio/wav');
    expect(result.heard).toEqual({ text: 'Round trip, über alles', model: 'offline-transcribe' });
    expect(result.outside).toEqual({
      status: 403,
      code: 'agent_access_denied',
      isBridgeError: true,
      correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(result.standaloneScope).toEqual({ type: 'standalone' });
    expect(result.standalone).toEqual({
      name: 'StandaloneScopeError',
      code: 'standalone_scope',
      typed: true,
    });
    expect(result.standaloneFindMany).toBe('standalone_scope');
    expect(result.standaloneModels).toBe('standalone_scope');
    expect(result.standaloneText).toMatchObject({ text: expect.any(String), model: 'offline-chat' });
    expect(result.standaloneHeard).toBe('standalone');
  }, 120_000);
});
