import type { AuthContext } from './auth-context';

/** A signed-in member of the organization: the caller of a request with a user's token. */
export type MemberActor = AuthContext;

/** An automation of the organization running its code: acts for the organization, sees all of it. */
export interface AutomationActor {
  kind: 'automation';
  organizationId: string;
  automationId: string;
}

/** A bot acting through its API key, limited to the forms and directories its key's scopes name. */
export interface BotActor {
  kind: 'bot';
  organizationId: string;
  botId: string;
  scopes: {
    mode: 'read' | 'write' | 'full';
    /** Forms the key reaches; absent: every form. */
    formIds?: readonly string[];
    /** Directories the key reaches; absent: every directory. */
    tableIds?: readonly string[];
  };
}

/** Who acts: what every policy decides about. */
export type Actor = MemberActor | AutomationActor | BotActor;

/** The member behind an actor, if it is one. */
export function memberOf(actor: Actor): MemberActor | undefined {
  return actor.kind === 'user' ? actor : undefined;
}

/** Whether a bot's key allows writing (read-only keys only read). */
export function botMayWrite(actor: BotActor): boolean {
  return actor.scopes.mode !== 'read';
}

/** Whether `id` is within a scope list (absent: everything). */
export function inScope(ids: readonly string[] | undefined, id: string): boolean {
  return ids === undefined || ids.includes(id);
}
