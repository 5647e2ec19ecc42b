// The error statuses the generate routes document.
import type { RouteDoc } from '#http';

export const generateErrors = (moreBadRequests = ''): NonNullable<RouteDoc['errors']> => [
  {
    status: 400,
    description:
      'Invalid request, the field named in `param`. A system or developer message is `system_role_not_allowed` ' +
      `(param \`messages.<index>.role\`)${moreBadRequests}`,
  },
  403,
  {
    status: 404,
    description:
      'Unknown Agent (`agent_not_found`), model (`model_not_found`) or conversation (`conversation_not_found`)',
  },
  429,
  502,
  504,
];
