import type { Form, FormField, Workflow } from '@shared/api/forms';
import type { FieldRow } from './forms.repo';
import type { FormDefinition } from './forms.service';

export function presentField(row: FieldRow): FormField {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    required: row.required,
    options: row.options,
    allow_multiple: row.allow_multiple,
    directoryId: row.directory_id,
    displayColumn: row.display_column,
  };
}

export function presentWorkflow(definition: FormDefinition): Workflow {
  return {
    statuses: definition.statuses.map((s) => ({ id: s.id, name: s.name, initial: s.is_initial, final: s.is_final })),
    transitions: definition.transitions.map((t) => ({ from: t.from_status_id, to: t.to_status_id })),
  };
}

export function presentForm(definition: FormDefinition): Form {
  const { form } = definition;
  return {
    id: form.id,
    name: form.name,
    fields: definition.fields.map(presentField),
    ...presentWorkflow(definition),
    qr_generation_enabled: form.qr_generation_enabled,
    visibleRoleIds: form.visible_role_ids,
    createdAt: form.created_at.toISOString(),
    updatedAt: form.updated_at.toISOString(),
  };
}
