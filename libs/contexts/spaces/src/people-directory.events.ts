// Whether the people directory is open: an instance setting (admins set it), closed until opened. Closed, the member
// picker (member-candidates) finds only the people the caller already shares a Space with; open, every active user.
// Admins always find everyone. Its own stream, and its read-model document beside the space-creation one.
import type { DomainEvent } from '#kernel';

export type PeopleDirectoryEvent =
  | DomainEvent<'PeopleDirectoryOpened', Record<string, never>>
  | DomainEvent<'PeopleDirectoryClosed', Record<string, never>>;

export const PEOPLE_DIRECTORY_STREAM = 'instance-settings-people-directory';

/** The setting as the read model holds it: one document, id `people-directory`, in the Space settings. */
export interface PeopleDirectoryView {
  readonly id: string;
  readonly open: boolean;
  readonly updatedAt: string;
}

export const PEOPLE_DIRECTORY_ID = 'people-directory';
