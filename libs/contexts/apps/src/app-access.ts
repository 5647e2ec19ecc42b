// What the Apps context asks the one policy: managing Apps is an admin's (and the platform's).
import { demand, type Principal } from '#access';

export function assertAppAdmin(principal: Principal): void {
  demand(principal, 'app.manage', null, 'managing Apps needs an admin');
}
