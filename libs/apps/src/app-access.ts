// What the Apps context asks the one policy: managing Apps is an admin's (and the platform's).
import { ForbiddenError } from '#kernel';
import { authorize, type Principal } from '#access';

export function assertAppAdmin(principal: Principal): void {
  const decision = authorize(principal, 'app.manage', null);
  if (!decision.allow) throw new ForbiddenError(decision.reason, 'managing Apps needs an admin');
}
