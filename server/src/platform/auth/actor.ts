import type { ActorId } from '../events';
import type { AuthContext } from './auth-context';

/** A signed-in member of the organization: the caller of a request with a user's token. */
export type MemberActor = AuthContext;

/** An automation of the organization running its code: acts for the organization, sees all of it. */
export interface AutomationActor {
  kind: 'automation';
  organizationId: string;
  automationId: string;
  /** How many automations' moves led to this run (the first run of a chain: 0). */
  chainDepth: number;
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

/**
 * Whether a bot may use administrators' data routes on a record of `kind` (`id`), or create one
 * (no `id`: its key must reach every record of the kind, since a new one is in no list): keys of
 * `full` mode only.
 */
export function botManages(actor: BotActor, kind: 'formIds' | 'tableIds', id?: string): boolean {
  if (actor.scopes.mode !== 'full') return false;
  return id === undefined ? actor.scopes[kind] === undefined : inScope(actor.scopes[kind], id);
}

/** Whether `id` is within a scope list (absent: everything). */
export function inScope(ids: readonly string[] | undefined, id: string): boolean {
  return ids === undefined || ids.includes(id);
}

/** The server itself acting for an organization (e.g. re-expanding a role's members): recorded as nobody. */
export interface SystemActor {
  kind: 'system';
  organizationId: string;
}

/** Who a record names as having acted: a user, a bot or an automation (all null: the server itself). */
export interface ActedBy {
  actorUserId: string | null;
  botId: string | null;
  automationId: string | null;
}

export function actedBy(actor: Actor | SystemActor): ActedBy {
  return {
    actorUserId: actor.kind === 'user' ? actor.userId : null,
    botId: actor.kind === 'bot' ? actor.botId : null,
    automationId: actor.kind === 'automation' ? actor.automationId : null,
  };
}

/** An actor as events name it. */
export function actorId(actor: Actor): ActorId {
  switch (actor.kind) {
    case 'user':
      return { userId: actor.userId };
    case 'bot':
      return { botId: actor.botId };
    case 'automation':
      return { automationId: actor.automationId };
  }
}
