import type { FieldType, Form, FormFieldInput } from '@shared/api/forms';
import type { ProblemFieldError } from '@shared/api/problem';

/** A field being edited; `key` is stable across reorders, `id` is set once the server knows it. */
export interface FieldDraft {
  key: string;
  id?: string;
  name: string;
  type: FieldType;
  required: boolean;
  options: string[];
  allow_multiple: boolean;
  directoryId: string | null;
  displayColumn: string | null;
}

export interface StatusDraft {
  key: string;
  id?: string;
  name: string;
  initial: boolean;
  final: boolean;
}

/** An allowed move between two statuses, named by their keys. */
export interface MoveDraft {
  from: string;
  to: string;
}

/** The whole editor state: what one save sends. */
export interface Draft {
  name: string;
  qr_generation_enabled: boolean;
  visibleRoleIds: string[];
  fields: FieldDraft[];
  statuses: StatusDraft[];
  moves: MoveDraft[];
}

/** Types whose value may hold several entries (the server ignores the flag on the others). */
export const MULTIPLE_TYPES: ReadonlySet<FieldType> = new Set(['select', 'user', 'table']);

let lastKey = 0;
/** A key for a row the server has not seen yet. */
export function newKey(): string {
  lastKey += 1;
  return `new-${lastKey}`;
}

export function newField(): FieldDraft {
  return {
    key: newKey(),
    name: '',
    type: 'text',
    required: false,
    options: [],
    allow_multiple: false,
    directoryId: null,
    displayColumn: null,
  };
}

export function newStatus(): StatusDraft {
  return { key: newKey(), name: '', initial: false, final: false };
}

/** A new form starts with the workflow the server would give it: New → In progress → Done. */
export function newDraft(names: { open: string; working: string; done: string }): Draft {
  const open = { ...newStatus(), name: names.open, initial: true };
  const working = { ...newStatus(), name: names.working };
  const done = { ...newStatus(), name: names.done, final: true };
  return {
    name: '',
    qr_generation_enabled: false,
    visibleRoleIds: [],
    fields: [],
    statuses: [open, working, done],
    moves: [
      { from: open.key, to: working.key },
      { from: open.key, to: done.key },
      { from: working.key, to: done.key },
      { from: working.key, to: open.key },
      { from: done.key, to: working.key },
    ],
  };
}

export function draftFromForm(form: Form): Draft {
  return {
    name: form.name,
    qr_generation_enabled: form.qr_generation_enabled,
    visibleRoleIds: form.visibleRoleIds,
    fields: form.fields.map((field) => ({
      key: field.id,
      id: field.id,
      name: field.name,
      type: field.type,
      required: field.required,
      options: field.options ?? [],
      allow_multiple: field.allow_multiple,
      directoryId: field.directoryId,
      displayColumn: field.displayColumn,
    })),
    statuses: form.statuses.map((status) => ({ key: status.id, ...status })),
    moves: form.transitions.map((move) => ({ from: move.from, to: move.to })),
  };
}

/** The field list as the API takes it: options only where the type uses them. */
export function fieldsRequest(draft: Draft): FormFieldInput[] {
  return draft.fields.map((field) => ({
    ...(field.id ? { id: field.id } : {}),
    name: field.name,
    type: field.type,
    required: field.required,
    options: field.type === 'select' ? field.options : null,
    allow_multiple: MULTIPLE_TYPES.has(field.type) ? field.allow_multiple : false,
    directoryId: field.type === 'table' ? field.directoryId : null,
    displayColumn: field.type === 'table' ? field.displayColumn || null : null,
  }));
}

/**
 * Statuses and moves as the API takes them. A status the server has not seen yet is named in its
 * moves by name, which the server resolves (names are unique within a form).
 */
export function workflowRequest(draft: Draft) {
  const reference = new Map(draft.statuses.map((status) => [status.key, status.id ?? status.name]));
  const transitions: { from: string; to: string }[] = [];
  const moveKeys: MoveDraft[] = [];
  for (const move of draft.moves) {
    const from = reference.get(move.from);
    const to = reference.get(move.to);
    if (from === undefined || to === undefined) continue;
    transitions.push({ from, to });
    moveKeys.push(move);
  }
  return {
    body: {
      statuses: draft.statuses.map((status) => ({
        ...(status.id ? { id: status.id } : {}),
        name: status.name,
        initial: status.initial,
        final: status.final,
      })),
      transitions,
    },
    moveKeys,
  };
}

/** The form's own settings as the update takes them. */
export function formRequest(draft: Draft) {
  return {
    name: draft.name,
    fields: fieldsRequest(draft),
    qr_generation_enabled: draft.qr_generation_enabled,
    visibleRoleIds: draft.visibleRoleIds,
  };
}

/** What a save would change, compared by the requests it would send. */
export function changes(draft: Draft, saved: Draft) {
  const form = JSON.stringify(formRequest(draft)) !== JSON.stringify(formRequest(saved));
  const workflow = JSON.stringify(workflowRequest(draft).body) !== JSON.stringify(workflowRequest(saved).body);
  return { form, workflow, any: form || workflow };
}

/** Problems of a failed save, placed where the user can act on them. */
export interface PlacedProblems {
  detail: string;
  formName?: ProblemFieldError;
  /** By field key, then by property (`name`, `options`, `directoryId`, …). */
  fields: Record<string, Record<string, ProblemFieldError>>;
  statuses: Record<string, Record<string, ProblemFieldError>>;
  /** Moves the problem names, as `from>to` keys. */
  moves: Record<string, ProblemFieldError>;
  /** Problems of the workflow as a whole, and any the editor cannot place. */
  workflow: ProblemFieldError[];
  other: ProblemFieldError[];
}

export function moveId(move: MoveDraft): string {
  return `${move.from}>${move.to}`;
}

/**
 * Places each error by its JSON pointer (`#/fields/2/options`, `#/statuses/0/name`,
 * `#/transitions/3/to`) on the row of the request it was sent in.
 */
export function placeProblems(
  detail: string,
  errors: readonly ProblemFieldError[],
  draft: Draft,
  moveKeys: readonly MoveDraft[],
): PlacedProblems {
  const placed: PlacedProblems = { detail, fields: {}, statuses: {}, moves: {}, workflow: [], other: [] };
  for (const error of errors) {
    const [section, index, property = ''] = error.pointer.replace(/^#\//, '').split('/');
    const at = Number(index);
    if (section === 'name' && index === undefined) {
      placed.formName = error;
    } else if (section === 'fields' && draft.fields[at]) {
      const key = draft.fields[at].key;
      placed.fields[key] = { ...placed.fields[key], [property]: error };
    } else if (section === 'statuses' && draft.statuses[at]) {
      const key = draft.statuses[at].key;
      placed.statuses[key] = { ...placed.statuses[key], [property]: error };
    } else if (section === 'transitions' && moveKeys[at]) {
      placed.moves[moveId(moveKeys[at])] = error;
      placed.workflow.push(error);
    } else if (section === 'statuses' || section === 'transitions') {
      placed.workflow.push(error);
    } else {
      placed.other.push(error);
    }
  }
  return placed;
}

/** The list with the item at `index` moved one place up (-1) or down (+1). */
export function moved<T>(items: readonly T[], index: number, delta: -1 | 1): T[] {
  const target = index + delta;
  const next = [...items];
  const item = next[index];
  const other = next[target];
  if (item === undefined || other === undefined) return next;
  next[index] = other;
  next[target] = item;
  return next;
}
