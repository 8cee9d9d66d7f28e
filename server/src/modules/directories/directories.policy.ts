import { type Actor, botManages, botMayWrite, inScope } from '../../platform/auth/actor';

/** Whether the actor may read the directory's rows: every member, automations, bots whose key names it. */
export function mayReadDirectory(actor: Actor, directoryId: string): boolean {
  return actor.kind !== 'bot' || inScope(actor.scopes.tableIds, directoryId);
}

/** Whether the actor may add, change, move, delete and restore the directory's rows, and import them. */
export function mayEditRows(actor: Actor, directoryId: string): boolean {
  return actor.kind !== 'bot' || (botMayWrite(actor) && inScope(actor.scopes.tableIds, directoryId));
}

/**
 * Whether the actor may create directories (no `directoryId`), or change, delete and restore the
 * directory itself (its columns and trees): administrators, and `full` keys reaching it (creating:
 * reaching every directory).
 */
export function mayManageDirectories(actor: Actor, directoryId?: string): boolean {
  if (actor.kind === 'bot') return botManages(actor, 'tableIds', directoryId);
  return actor.kind === 'user' && actor.isAdmin;
}
