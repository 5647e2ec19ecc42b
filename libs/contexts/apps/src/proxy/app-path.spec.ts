import { appPathNeedsSession } from '#access';
import { normaliseAppPath } from './app-path.js';

/** What the proxy does with a path below `/app/{id}`: forwards it as `path` (and whether that needs a session). */
const decided = (raw: string) => {
  const normalised = normaliseAppPath(raw);
  return 'refused' in normalised
    ? { refused: true }
    : { path: normalised.path, session: appPathNeedsSession(normalised.path) };
};

describe('the App proxy decides on one normalised path and forwards exactly it', () => {
  // Every spelling of issue 42's red-team run that reached the App without a session, and its neighbours.
  it.each([
    ['/ADMIN', '/ADMIN'],
    ['/User', '/User'],
    ['//admin', '/admin'],
    ['/%61dmin', '/admin'],
    ['/admin;x', '/admin'],
    ['/admin;jsessionid=1/x', '/admin/x'],
    ['/user%20', '/user'],
    ['/%20user/x', '/user/x'],
    ['/x/../admin', '/admin'],
    ['/x/..;/admin', '/admin'],
    ['/./admin/', '/admin/'],
    ['/knowledge', '/knowledge'],
    ['/STANDALONE/x', '/STANDALONE/x'],
    ['/ａｄｍｉｎ', '/%EF%BD%81%EF%BD%84%EF%BD%8D%EF%BD%89%EF%BD%8E'],
  ])('%s is a session path, forwarded as %s', (raw, path) => {
    expect(decided(raw)).toEqual({ path, session: true });
  });

  it.each([
    ['/%2fadmin'],
    ['/admin%2fx'],
    ['/admin%2Fx'],
    ['/x/..%2fadmin'],
    ['/x/..%5cadmin'],
    ['/x\\admin'],
    ['/admin%00'],
    ['/admin%0a'],
    ['/admin%7f'],
    ['/admin%c2%85'],
    ['/%2561dmin'],
    ['/%E0%A4%A'],
    ['/%ff'],
    ['/..'],
    ['/x/../../admin'],
  ])('%s is refused (400)', (raw) => {
    expect(decided(raw)).toEqual({ refused: true });
  });

  it.each([
    ['/', '/'],
    ['/webhook', '/webhook'],
    ['/api/v1/items/', '/api/v1/items/'],
    ['/administrator', '/administrator'],
    ['/users', '/users'],
    ['/x/admin', '/x/admin'],
    ['/oauth/callback', '/oauth/callback'],
    ['/files/a%20b.txt', '/files/a%20b.txt'],
    ['/files/caf%C3%A9', '/files/caf%C3%A9'],
    ['/a/./b/../c', '/a/c'],
    ["/it's(1)+2=3:@!$&*,~", "/it's(1)+2=3:@!$&*,~"],
    ['/q%3Fx%23y', '/q%3Fx%23y'],
  ])('%s is the App’s own path, forwarded as %s', (raw, path) => {
    expect(decided(raw)).toEqual({ path, session: false });
  });
});
