import { type Actor, botMayWrite, inScope } from '../../platform/auth/actor';

/** Whether the actor may read the directory's rows: every member, automations, bots whose key names it. */
export function mayReadDirectory(actor: Actor, directoryId: string): boolean {
  return actor.kind !== 'bot' || inScope(actor.scopes.tableIds, directoryId);
}

/** Whether the actor may add, change, move, delete and restore the directory's rows, and import them. */
export function mayEditRows(actor: Actor, directoryId: string): boolean {
  return actor.kind !== 'bot' || (botMayWrite(actor) && inScope(actor.scopes.tableIds, directoryId));
}

/** Whether the actor may create, change and delete directories themselves (their columns and trees). */
export function mayManageDirectories(actor: Actor): boolean {
  return actor.kind === 'user' && actor.isAdmin;
}
