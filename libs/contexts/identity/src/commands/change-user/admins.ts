// How many active administrators there are besides one user (the last one stays: see the user decider).
import type { ReadStore } from '#read-store';
import { USERS, type UserView } from '../../users.read-model.js';

export const otherActiveAdmins = async (readStore: ReadStore, userId: string): Promise<number> => {
  const admins = await readStore.reader<UserView>(USERS).find({ role: 'admin' }, { limit: 200 });
  return admins.data.filter((user) => user.id !== userId && (user.status ?? 'active') === 'active').length;
};
