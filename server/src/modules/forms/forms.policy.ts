import { formOpenTo } from '@shared/form-access';
import { type Actor, botManages, inScope } from '../../platform/auth/actor';

/** What a form policy looks at: the form's id and the roles it is restricted to (none: everyone). */
export interface FormAccessFacts {
  id: string;
  visible_role_ids: readonly string[];
}

/**
 * Whether the actor may see the form's tasks and create tasks of it (assignees see theirs anyway):
 * members it is open to (`formOpenTo`), automations, and bots whose key's scope names it.
 */
export function canUseForm(actor: Actor, form: FormAccessFacts): boolean {
  switch (actor.kind) {
    case 'user':
      return formOpenTo(form.visible_role_ids, actor);
    case 'automation':
      return true;
    case 'bot':
      return inScope(actor.scopes.formIds, form.id);
  }
}

/**
 * Whether the actor may read the form's definition: those who may use it, and the assignees of its
 * live tasks (they need its fields, statuses and moves; creating tasks of it stays with the former).
 */
export function canReadForm(actor: Actor, form: FormAccessFacts, assigned: boolean): boolean {
  return canUseForm(actor, form) || assigned;
}

/**
 * Whether the actor may create forms (no `formId`), or change, delete or restore the form and its
 * workflow: administrators, and `full` keys reaching it (creating: reaching every form).
 */
export function mayManageForms(actor: Actor, formId?: string): boolean {
  if (actor.kind === 'bot') return botManages(actor, 'formIds', formId);
  return actor.kind === 'user' && actor.isAdmin;
}
