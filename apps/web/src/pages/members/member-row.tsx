// One member's row: their name, their role (a select when the person may change it, never the last owner's), and
// Remove, or Leave on the person's own row (not in a personal Space, not the last owner).
import { t } from '../../i18n';
import { RoleOptions } from './role-options';
import { roleLabel, type Member, type Role } from './roles';

export function MemberRow({
  member,
  name,
  own,
  changeable,
  lastOwner,
  personal,
  grantable,
  onRole,
  onRemove,
  onLeave,
}: {
  member: Member;
  name: string;
  /** The person's own row. */
  own: boolean;
  changeable: boolean;
  lastOwner: boolean;
  personal: boolean;
  grantable: readonly Role[];
  onRole: (role: Role) => void;
  onRemove: () => void;
  onLeave: () => void;
}) {
  return (
    <tr data-user={member.userId}>
      <td>{name}</td>
      <td>
        {changeable && !lastOwner ? (
          <label>
            <span class="visually-hidden">{t('roleOf', { name })}</span>
            <select
              value={member.role}
              onChange={(e) => onRole((e.target as HTMLSelectElement).value as Role)}
            >
              <RoleOptions roles={grantable} />
            </select>
          </label>
        ) : (
          roleLabel(member.role)
        )}
      </td>
      <td>
        {own
          ? !personal &&
            !lastOwner && (
              <button type="button" onClick={onLeave}>
                {t('leaveSpace')}
              </button>
            )
          : changeable &&
            !lastOwner && (
              <button type="button" aria-label={t('removeMember', { name })} onClick={onRemove}>
                {t('remove')}
              </button>
            )}
      </td>
    </tr>
  );
}
