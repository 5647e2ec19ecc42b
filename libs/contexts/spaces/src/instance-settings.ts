// The instance settings the Spaces context keeps (who creates Spaces, whether the people directory is open): read
// and changed by admins only, as the policy's `instance.settings.manage` says.
import { demand, type Principal } from '#access';

/** 403 (the policy's reason) unless the principal manages the instance's settings. */
export function assertManagesInstanceSettings(principal: Principal, doing: 'read' | 'change'): void {
  demand(principal, 'instance.settings.manage', null, `only admins ${doing} instance settings`);
}
