import type { Actor } from '../../platform/auth/actor';

/** Whether the actor may see and change the delegations of `userId`: the user themself and administrators. */
export function mayManageDelegationsOf(actor: Actor, userId: string): boolean {
  return actor.kind === 'user' && (actor.isAdmin || actor.userId === userId);
}
