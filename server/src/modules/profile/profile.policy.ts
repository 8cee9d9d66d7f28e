import type { Actor } from '../../platform/auth/actor';

/** Whether the actor may read and write the profile values of `userId`: the user themself and administrators. */
export function mayManageProfileOf(actor: Actor, userId: string): boolean {
  return actor.kind === 'user' && (actor.isAdmin || actor.userId === userId);
}

/** Whether the actor may define the organization's profile fields. */
export function mayDefineProfileFields(actor: Actor): boolean {
  return actor.kind === 'user' && actor.isAdmin;
}
