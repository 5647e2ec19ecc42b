// The roles a person may grant, as a select's options.
import { roleLabel, type Role } from './roles';

export function RoleOptions({ roles }: { roles: readonly Role[] }) {
  return (
    <>
      {roles.map((r) => (
        <option key={r} value={r}>
          {roleLabel(r)}
        </option>
      ))}
    </>
  );
}
