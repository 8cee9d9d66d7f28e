import type {
  CreateFormRequest,
  DeletedFormList,
  Form,
  FormFieldInput,
  UpdateFormRequest,
  Workflow,
  WorkflowRequest,
} from '@shared/api/forms';
import type { ProblemFieldError } from '@shared/api/problem';
import type { z } from 'zod';
import { type Actor, actedBy, memberOf } from '../../platform/auth/actor';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { directoryExists } from '../directories/directories.service';
import * as members from '../identity/members.service';
import { canReadForm, canUseForm, mayManageForms } from './forms.policy';
import { presentForm, presentWorkflow } from './forms.presenter';
import * as repo from './forms.repo';

/** Other modules ask whether a form is open to an actor through the forms service. */
export { canUseForm } from './forms.policy';

/** A field of a form, as other modules check values against it. */
export type FormField = repo.FieldRow;

/** A form with its current fields, statuses and allowed moves: what tasks are checked against. */
export interface FormDefinition {
  form: repo.FormRow;
  fields: repo.FieldRow[];
  statuses: repo.StatusRow[];
  transitions: repo.TransitionRow[];
}

export const formNotFound = (formId: string) =>
  Problem.of('not_found', `There is no form ${formId} in your organization.`);

/** A form's settings (deleted ones included), as other modules ask for them. */
export function findForm(db: Queryable, organizationId: string, formId: string): Promise<repo.FormRow | undefined> {
  return repo.findForm(db, organizationId, formId);
}

/** A live status of the organization's forms (with its form's id), as other modules refer to one. */
export function findStatus(
  db: Queryable,
  organizationId: string,
  statusId: string,
): Promise<repo.StatusRow | undefined> {
  return repo.findStatus(db, organizationId, statusId);
}

/** Whether the organization has a form that is not deleted. */
export async function organizationHasForms(db: Queryable, organizationId: string): Promise<boolean> {
  return (await repo.listForms(db, organizationId)).length > 0;
}

/** Definitions of forms by id (deleted forms included: their tasks stay readable). */
export async function loadFormDefinitions(
  db: Queryable,
  organizationId: string,
  forms: readonly repo.FormRow[],
): Promise<Map<string, FormDefinition>> {
  const ids = forms.map((form) => form.id);
  // One after another: inside a transaction the three share one connection.
  const fields = await repo.listFields(db, organizationId, ids);
  const statuses = await repo.listStatuses(db, organizationId, ids);
  const transitions = await repo.listTransitions(db, organizationId, ids);
  return new Map(
    forms.map((form) => [
      form.id,
      {
        form,
        fields: fields.filter((f) => f.form_id === form.id),
        statuses: statuses.filter((s) => s.form_id === form.id),
        transitions: transitions.filter((t) => t.form_id === form.id),
      },
    ]),
  );
}

export async function getFormDefinition(
  db: Queryable,
  organizationId: string,
  formId: string,
): Promise<FormDefinition | undefined> {
  const form = await repo.findForm(db, organizationId, formId);
  if (!form) return undefined;
  return (await loadFormDefinitions(db, organizationId, [form])).get(formId);
}

const DEFAULT_STATUS_NAMES = { ru: ['Новая', 'В работе', 'Готово'], en: ['New', 'In progress', 'Done'] } as const;

/** New → In progress → Done, with reopening and a shortcut straight to Done. */
function defaultWorkflow(locale: 'ru' | 'en'): z.infer<typeof WorkflowRequest> {
  const [open, working, done] = DEFAULT_STATUS_NAMES[locale];
  return {
    statuses: [
      { name: open, initial: true, final: false },
      { name: working, initial: false, final: false },
      { name: done, initial: false, final: true },
    ],
    transitions: [
      { from: open, to: working },
      { from: open, to: done },
      { from: working, to: done },
      { from: working, to: open },
      { from: done, to: working },
    ],
  };
}

function invalid(detail: string, errors: ProblemFieldError[]): Problem {
  return Problem.of('validation_failed', detail, { errors });
}

/**
 * Checks a workflow and gives every status an id: exactly one initial status, unique names, and
 * transitions naming listed statuses (by id or by name).
 */
async function resolveWorkflow(
  tx: Queryable,
  formId: string,
  input: z.infer<typeof WorkflowRequest>,
): Promise<{ statuses: repo.StatusRow[]; transitions: repo.TransitionRow[] }> {
  const errors: ProblemFieldError[] = [];
  const statuses: repo.StatusRow[] = [];
  const names = new Set<string>();
  for (const [index, status] of input.statuses.entries()) {
    const key = status.name.toLowerCase();
    if (names.has(key)) {
      errors.push({
        location: 'body',
        pointer: `#/statuses/${index}/name`,
        detail: `Two statuses are named "${status.name}"`,
        code: 'duplicate',
      });
    }
    names.add(key);
    if (status.id) {
      const owner = await repo.statusOwner(tx, status.id);
      if (owner && owner !== formId) {
        errors.push({
          location: 'body',
          pointer: `#/statuses/${index}/id`,
          detail: 'This id belongs to another form',
          code: 'id_taken',
        });
      }
    }
    statuses.push({
      id: status.id ?? newId(),
      form_id: formId,
      name: status.name,
      is_initial: status.initial,
      is_final: status.final,
      position: index,
    });
  }
  const initials = statuses.filter((status) => status.is_initial).length;
  if (initials !== 1) {
    errors.push({
      location: 'body',
      pointer: '#/statuses',
      detail: `Exactly one status must be initial (found ${initials})`,
      code: 'one_initial_status',
    });
  }
  const find = (ref: string) =>
    statuses.find((s) => s.id === ref) ?? statuses.find((s) => s.name.toLowerCase() === ref.toLowerCase());
  const transitions: repo.TransitionRow[] = [];
  for (const [index, transition] of input.transitions.entries()) {
    const from = find(transition.from);
    const to = find(transition.to);
    if (!from)
      errors.push({
        location: 'body',
        pointer: `#/transitions/${index}/from`,
        detail: `No status "${transition.from}"`,
        code: 'unknown_status',
      });
    if (!to)
      errors.push({
        location: 'body',
        pointer: `#/transitions/${index}/to`,
        detail: `No status "${transition.to}"`,
        code: 'unknown_status',
      });
    if (from && to && from.id === to.id) {
      errors.push({
        location: 'body',
        pointer: `#/transitions/${index}`,
        detail: 'A status cannot move to itself',
        code: 'self_transition',
      });
    }
    if (from && to && from.id !== to.id) transitions.push({ from_status_id: from.id, to_status_id: to.id });
  }
  if (errors.length > 0) throw invalid('The workflow is not valid. Correct the listed statuses and moves.', errors);
  return { statuses, transitions };
}

/** Checks field definitions and makes their rows; a type change is refused while tasks hold values. */
async function resolveFields(
  tx: Queryable,
  organizationId: string,
  formId: string,
  inputs: readonly FormFieldInput[],
  existing: readonly repo.FieldRow[],
): Promise<repo.FieldRow[]> {
  const errors: ProblemFieldError[] = [];
  const rows: repo.FieldRow[] = [];
  for (const [index, field] of inputs.entries()) {
    const at = (key: string) => `#/fields/${index}/${key}`;
    if (field.type === 'select' && (!field.options || field.options.length === 0)) {
      errors.push({
        location: 'body',
        pointer: at('options'),
        detail: 'A select field needs its choices',
        code: 'options_required',
      });
    }
    if (
      field.type === 'table' &&
      field.directoryId &&
      !(await directoryExists(tx, organizationId, field.directoryId))
    ) {
      errors.push({
        location: 'body',
        pointer: at('directoryId'),
        detail: 'There is no such directory',
        code: 'unknown_directory',
      });
    }
    const current = field.id ? existing.find((f) => f.id === field.id) : undefined;
    if (field.id && !current) {
      const owner = await repo.fieldOwner(tx, field.id);
      if (owner && owner !== formId) {
        errors.push({
          location: 'body',
          pointer: at('id'),
          detail: 'This id belongs to another form',
          code: 'id_taken',
        });
      }
    }
    if (current && (current.type !== field.type || (current.allow_multiple && !field.allow_multiple))) {
      if (await repo.fieldHasValues(tx, organizationId, formId, current.id)) {
        throw Problem.of(
          'field_type_locked',
          `Field "${current.name}" has values in tasks, so its type and multiplicity cannot change. Add a new field instead.`,
        );
      }
    }
    rows.push({
      id: field.id ?? newId(),
      form_id: formId,
      name: field.name,
      type: field.type,
      required: field.required,
      options: field.type === 'select' ? (field.options ?? []) : null,
      allow_multiple:
        field.type === 'user' || field.type === 'select' || field.type === 'table' ? field.allow_multiple : false,
      directory_id: field.type === 'table' ? (field.directoryId ?? null) : null,
      display_column: field.type === 'table' ? field.displayColumn || null : null,
      position: index,
    });
  }
  const ids = new Set<string>();
  for (const [index, row] of rows.entries()) {
    if (ids.has(row.id))
      errors.push({
        location: 'body',
        pointer: `#/fields/${index}/id`,
        detail: 'Two fields share this id',
        code: 'duplicate',
      });
    ids.add(row.id);
  }
  if (errors.length > 0) throw invalid('Some fields are not valid. Correct the listed fields.', errors);
  return rows;
}

export type FormsDeps = UnitDeps;

async function present(db: Queryable, auth: Actor, formId: string): Promise<Form> {
  const definition = await getFormDefinition(db, auth.organizationId, formId);
  if (!definition || definition.form.deleted_at) throw formNotFound(formId);
  return presentForm(definition);
}

/** Refuses a key that may not make forms: a new form is in no key's list, so only keys reaching every form may. */
function assertMayCreateForms(auth: Actor): void {
  if (!mayManageForms(auth)) {
    throw Problem.of('scope_denied', 'Only a full key that reaches every form may create forms.');
  }
}

/** The form, if the actor may manage it; one outside a key's forms is answered as unknown. */
function assertMayManageForm(auth: Actor, formId: string): void {
  if (!mayManageForms(auth, formId)) throw formNotFound(formId);
}

export async function createForm(deps: FormsDeps, auth: Actor, input: z.infer<typeof CreateFormRequest>) {
  assertMayCreateForms(auth);
  const formId = input.id ?? newId();
  await inUnit(deps, async ({ tx }) => {
    await members.assertRolesExist(tx, auth.organizationId, input.visibleRoleIds, 'visibleRoleIds');
    const created = await repo.insertForm(tx, {
      id: formId,
      organizationId: auth.organizationId,
      name: input.name,
      qr: input.qr_generation_enabled,
      visibleRoleIds: input.visibleRoleIds,
      createdBy: actedBy(auth).actorUserId,
    });
    if (!created) throw Problem.of('conflict', `A form with id ${formId} already exists.`);
    const workflow = input.statuses
      ? { statuses: input.statuses, transitions: input.transitions ?? [] }
      : defaultWorkflow(auth.kind === 'user' ? auth.locale : 'ru');
    const { statuses, transitions } = await resolveWorkflow(tx, formId, workflow);
    const fields = await resolveFields(tx, auth.organizationId, formId, input.fields, []);
    for (const field of fields) await repo.upsertField(tx, auth.organizationId, formId, field);
    await repo.replaceWorkflow(tx, auth.organizationId, formId, statuses, transitions);
  });
  return present(deps.db, auth, formId);
}

export async function listForms(deps: FormsDeps, auth: Actor) {
  const forms = (await repo.listForms(deps.db, auth.organizationId)).filter((form) => canUseForm(auth, form));
  const definitions = await loadFormDefinitions(deps.db, auth.organizationId, forms);
  return { items: forms.map((form) => presentForm(definitions.get(form.id) as FormDefinition)) };
}

/** Whether the actor is a member assigned to a live task of the form (bots are never assigned). */
async function isAssignedOnForm(db: Queryable, auth: Actor, formId: string): Promise<boolean> {
  const member = memberOf(auth);
  return member ? repo.isAssignedOnForm(db, auth.organizationId, formId, member.userId) : false;
}

export async function getForm(deps: FormsDeps, auth: Actor, formId: string): Promise<Form> {
  const definition = await getFormDefinition(deps.db, auth.organizationId, formId);
  if (!definition || definition.form.deleted_at) throw formNotFound(formId);
  const readable =
    canUseForm(auth, definition.form) ||
    canReadForm(auth, definition.form, await isAssignedOnForm(deps.db, auth, formId));
  if (!readable) throw formNotFound(formId);
  return presentForm(definition);
}

export async function updateForm(
  deps: FormsDeps,
  auth: Actor,
  formId: string,
  patch: z.infer<typeof UpdateFormRequest>,
) {
  assertMayManageForm(auth, formId);
  await inUnit(deps, async ({ tx }) => {
    const form = await repo.lockForm(tx, auth.organizationId, formId);
    if (!form || form.deleted_at) throw formNotFound(formId);
    if (patch.visibleRoleIds) {
      await members.assertRolesExist(tx, auth.organizationId, patch.visibleRoleIds, 'visibleRoleIds');
    }
    // All or nothing: a refused workflow leaves the fields and settings as they were, and back.
    if (patch.statuses && patch.transitions) {
      await replaceWorkflow(tx, auth, formId, { statuses: patch.statuses, transitions: patch.transitions });
    }
    if (patch.fields) {
      const existing = await repo.listFields(tx, auth.organizationId, [formId]);
      const fields = await resolveFields(tx, auth.organizationId, formId, patch.fields, existing);
      for (const field of fields) await repo.upsertField(tx, auth.organizationId, formId, field);
      await repo.removeFieldsExcept(
        tx,
        auth.organizationId,
        formId,
        fields.map((f) => f.id),
      );
    }
    await repo.updateForm(tx, auth.organizationId, formId, {
      name: patch.name,
      qr: patch.qr_generation_enabled,
      visibleRoleIds: patch.visibleRoleIds,
    });
  });
  return present(deps.db, auth, formId);
}

/** Deletes a form: it leaves lists and takes no new tasks; its tasks stay readable. */
export async function deleteForm(deps: FormsDeps, auth: Actor, formId: string): Promise<void> {
  assertMayManageForm(auth, formId);
  if (!(await repo.softDeleteForm(deps.db, auth.organizationId, formId))) throw formNotFound(formId);
}

/** The organization's deleted forms, most recently deleted first (administrators bring them back). */
export async function listDeletedForms(deps: FormsDeps, auth: Actor): Promise<DeletedFormList> {
  const rows = await repo.listDeletedForms(deps.db, auth.organizationId);
  return {
    items: rows
      .filter((row) => mayManageForms(auth, row.id))
      .map((row) => ({
        id: row.id,
        name: row.name,
        deletedAt: row.deleted_at.toISOString(),
        taskCount: Number(row.task_count),
      })),
  };
}

/**
 * Brings a deleted form back as it was (fields, workflow, who may use it): it takes new tasks again
 * and reaches every replica it is open to. A form not deleted is answered as it is.
 */
export async function restoreForm(deps: FormsDeps, auth: Actor, formId: string): Promise<Form> {
  assertMayManageForm(auth, formId);
  await repo.restoreForm(deps.db, auth.organizationId, formId);
  return getForm(deps, auth, formId);
}

export async function getWorkflow(deps: FormsDeps, auth: Actor, formId: string): Promise<Workflow> {
  const definition = await getFormDefinition(deps.db, auth.organizationId, formId);
  if (!definition || definition.form.deleted_at || !canUseForm(auth, definition.form)) throw formNotFound(formId);
  return presentWorkflow(definition);
}

/** Replaces statuses and moves; a status that tasks are in cannot be removed. */
export async function setWorkflow(
  deps: FormsDeps,
  auth: Actor,
  formId: string,
  input: z.infer<typeof WorkflowRequest>,
) {
  assertMayManageForm(auth, formId);
  await inUnit(deps, async ({ tx }) => {
    const form = await repo.lockForm(tx, auth.organizationId, formId);
    if (!form || form.deleted_at) throw formNotFound(formId);
    await replaceWorkflow(tx, auth, formId, input);
    await repo.touchForm(tx, auth.organizationId, formId);
  });
  return getWorkflow(deps, auth, formId);
}

/** Within a transaction holding the form's lock: the new statuses and moves, or why not. */
async function replaceWorkflow(
  tx: Queryable,
  auth: Actor,
  formId: string,
  input: z.infer<typeof WorkflowRequest>,
): Promise<void> {
  const { statuses, transitions } = await resolveWorkflow(tx, formId, input);
  const current = await repo.listStatuses(tx, auth.organizationId, [formId]);
  const removed = current.filter((status) => !statuses.some((s) => s.id === status.id));
  const used = await repo.statusesInUse(
    tx,
    auth.organizationId,
    removed.map((s) => s.id),
  );
  if (used.length > 0) {
    const names = removed.filter((s) => used.includes(s.id)).map((s) => `"${s.name}"`);
    throw Problem.of('status_in_use', `Tasks are in status ${names.join(', ')}; move them first, then remove it.`);
  }
  await repo.replaceWorkflow(tx, auth.organizationId, formId, statuses, transitions);
}
