// The Skills of an Agent's settings in a real Chromium against the real api: an editor of the Space writes a Skill
// inline and publishes it, edits its draft, compares two versions side by side, publishes, rolls back to the first,
// installs a marketplace Skill and uninstalls it, and deletes a Skill after a confirmation (Escape cancels); a member
// sees the Skills without any control to change them; a German page explains a taken name in German. Screenshots at
// 390 and 1280 px; axe-core: 0 serious or critical violations.
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  addMembers,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  SignedInPages,
  spaceWithAgent,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('Skills pages (browser)');
const describeBrowser = run ? describe : describe.skip;

interface SkillBody {
  readonly id: string;
  readonly name: string;
  readonly activeVersionId: string | null;
  readonly draftVersionId: string | null;
  readonly sourceId: string | null;
  readonly versions?: readonly { readonly id: string; readonly number: number }[];
}

describeBrowser('Skills in the Agent settings, in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let spaceId: string;
  let agentId: string;
  const stamp = Date.now();
  const editor = { email: `eda-${stamp}@example.com`, id: '' };
  const member = { email: `max-${stamp}@example.com`, id: '' };
  const admin = () => client(api.url, ADMIN_KEY);
  const agentSkills = async () =>
    (await admin().get<{ data: SkillBody[] }>(`${CORE}/skills?agentId=${agentId}&limit=200`)).body.data;
  const skillNamed = async (name: string) => (await agentSkills()).find((skill) => skill.name === name);

  async function settingsAs(email: string, width = 1280): Promise<Page> {
    const page = await pages.of(api.url, email, { width });
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await page.getByRole('heading', { name: 'Skills', exact: true }).waitFor();
    return page;
  }

  async function writeSkill(page: Page, name: string, instructions: string): Promise<void> {
    await page.getByRole('button', { name: /^(New Skill|Neuer Skill)$/ }).click();
    const form = page.locator('form.skill-form');
    await form.locator('input').nth(0).fill(name);
    await form.locator('input').nth(1).fill(`Use it when asked about ${name}.`);
    await form.locator('textarea').fill(instructions);
    await form.locator('button[type="submit"]').click();
  }

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    ({ spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Docs'), uniqueName('Scribe')));
    editor.id = (await invitedPerson(api.url, editor.email, { name: 'Eda Editor', role: 'member' })).userId;
    member.id = (await invitedPerson(api.url, member.email, { name: 'Max Member', role: 'member' })).userId;
    await addMembers(api.url, spaceId, [
      [editor.id, 'editor'],
      [member.id, 'member'],
    ]);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it('an editor writes, drafts, compares, publishes and rolls back a Skill', async () => {
    const page = await settingsAs(editor.email);
    await writeSkill(page, 'release-notes', 'Write release notes as a bulleted list.');
    const list = page.locator('ul.skills').first();
    await list.getByText('release-notes', { exact: true }).waitFor();
    // Written without "publish at once": a draft Agents do not load yet.
    let skill = (await skillNamed('release-notes'))!;
    expect(skill.activeVersionId).toBeNull();
    expect(skill.draftVersionId).not.toBeNull();
    await page.getByRole('button', { name: 'Publish release-notes' }).click();
    await waitUntil(async () => (await skillNamed('release-notes'))?.activeVersionId != null);

    // The draft of a second version, with other instructions.
    await page.getByRole('button', { name: 'Edit release-notes' }).click();
    const draft = page.locator('form.skill-form');
    await draft.getByRole('heading', { name: 'Draft of release-notes' }).waitFor();
    expect(await draft.locator('textarea').inputValue()).toBe('Write release notes as a bulleted list.');
    await draft.locator('textarea').fill('Write release notes grouped by Added, Changed and Fixed.');
    await draft.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('unpublished draft').waitFor();

    // Both versions side by side: what publishing would change.
    await page.getByRole('button', { name: 'Versions of release-notes' }).click();
    const versions = page.getByRole('region', { name: 'Versions of release-notes' });
    await versions.getByRole('article', { name: 'Version 1' }).getByText('as a bulleted list').waitFor();
    await versions.getByRole('article', { name: 'Version 2' }).getByText('grouped by Added').waitFor();
    await screenshot(page, 'skills-versions-1280');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Publish release-notes' }).click();
    await waitUntil(async () => (await skillNamed('release-notes'))?.draftVersionId === null);
    skill = (await admin().get<SkillBody>(`${CORE}/skills/${skill.id}`)).body;
    const [first, second] = [...(skill.versions ?? [])].sort((a, b) => a.number - b.number);
    expect(skill.activeVersionId).toBe(second!.id);

    // Back to the first version (the versions are still open, and follow the publication): Agents load it again.
    await page.getByRole('button', { name: 'Load version 1' }).click();
    await waitUntil(async () => (await skillNamed('release-notes'))?.activeVersionId === first!.id);
  });

  it('an editor installs a marketplace Skill and uninstalls it, and deletes a Skill after confirming', async () => {
    // An admin lists a Skill of another Space on the marketplace.
    const library = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Library') });
    const listed = await admin().post<{ id: string }>(`${CORE}/skills`, {
      spaceId: library.body.id,
      name: 'meeting-minutes',
      description: 'Use it to write the minutes of a meeting.',
      instructions: 'Minutes: attendees, decisions, actions with owners.',
      publish: true,
    });
    expect(listed.status).toBe(201);
    expect((await admin().post(`${CORE}/skills/${listed.body.id}/marketplace`, {})).status).toBe(200);

    const page = await settingsAs(editor.email);
    const market = page.getByRole('region', { name: 'Marketplace' });
    await market.getByRole('button', { name: 'Install meeting-minutes for this Agent' }).click();
    await market.getByRole('button', { name: 'Uninstall meeting-minutes' }).waitFor();
    const installed = (await agentSkills()).find((skill) => skill.sourceId === listed.body.id);
    expect(installed?.name).toBe('meeting-minutes');
    await market.getByRole('button', { name: 'Uninstall meeting-minutes' }).click();
    await market.getByRole('button', { name: 'Install meeting-minutes for this Agent' }).waitFor();
    expect((await agentSkills()).some((skill) => skill.sourceId === listed.body.id)).toBe(false);

    // Deleting asks first; Escape keeps the Skill.
    await writeSkill(page, 'scratch-notes', 'Keep notes short.');
    await page.getByRole('button', { name: 'Delete scratch-notes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete scratch-notes?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await skillNamed('scratch-notes')).toBeDefined();
    await page.getByRole('button', { name: 'Delete scratch-notes' }).click();
    await dialog.getByRole('button', { name: 'Delete scratch-notes' }).click();
    await waitUntil(async () => (await skillNamed('scratch-notes')) === undefined);
  });

  it('a member sees the Skills without controls; a German page describes the shipped Skills and explains a taken name in German', async () => {
    const memberPage = await settingsAs(member.email, 390);
    await memberPage.locator('ul.skills').first().getByText('release-notes', { exact: true }).waitFor();
    expect(await memberPage.getByRole('button', { name: 'New Skill' }).count()).toBe(0);
    expect(await memberPage.getByRole('button', { name: 'Edit release-notes' }).count()).toBe(0);
    expect(await memberPage.getByRole('button', { name: 'Delete release-notes' }).count()).toBe(0);
    await screenshot(memberPage, 'skills-member-390');
    expect(await seriousViolations(memberPage)).toEqual([]);

    const german = await settingsAs(editor.email);
    await german.locator('label.language select').selectOption('de');
    await german.getByRole('heading', { name: 'Skills', exact: true }).waitFor();
    // The Skills the instance ships describe themselves in the page's language.
    await german.getByText(/Entwirft eine klare, gegliederte E-Mail/).waitFor();
    expect(await german.getByText(/Draft a clear, structured email/).count()).toBe(0);
    await writeSkill(german, 'release-notes', 'Noch einmal.');
    await german
      .getByRole('alert')
      .getByText('Hier gibt es schon einen Skill mit diesem Namen: Wähle einen anderen.')
      .waitFor();
    await screenshot(german, 'skills-taken-name-de-390');
  });
});
