import type { FormField } from '@shared/api/forms';
import { describe, expect, it } from 'vitest';
import { fieldsNaming, withAssignees, withoutPerson } from './assignees';

const IVAN = '00000000-0000-4000-8000-00000000000a';
const OLGA = '00000000-0000-4000-8000-00000000000b';
const DIVERS = '00000000-0000-4000-8000-0000000000d1';

const field = (id: string, type: FormField['type'], allowMultiple = false): FormField => ({
  id,
  name: id,
  type,
  required: false,
  options: null,
  allow_multiple: allowMultiple,
  directoryId: null,
  displayColumn: null,
});

const fields = [field('inspector', 'user'), field('crew', 'user', true), field('note', 'text')];
const roles = new Map([[DIVERS, [OLGA]]]);

describe('the fields that keep a person on a task', () => {
  it('finds a person named directly, as user:<id> or a bare id, and through a role they belong to', () => {
    expect(fieldsNaming(fields, { inspector: `user:${IVAN}` }, IVAN, roles)).toEqual([{ fieldId: 'inspector' }]);
    expect(fieldsNaming(fields, { crew: [IVAN] }, IVAN, roles)).toEqual([{ fieldId: 'crew' }]);
    expect(fieldsNaming(fields, { crew: [`role:${DIVERS}`] }, OLGA, roles)).toEqual([
      { fieldId: 'crew', roleId: DIVERS },
    ]);
    // Named directly there too: taking the name out of the field is what counts for that field.
    expect(fieldsNaming(fields, { crew: [`role:${DIVERS}`, `user:${OLGA}`] }, OLGA, roles)).toEqual([
      { fieldId: 'crew' },
    ]);
  });

  it('ignores other people, other roles, fields of other types and unreadable values', () => {
    expect(fieldsNaming(fields, { inspector: `user:${OLGA}`, crew: [`role:${DIVERS}`] }, IVAN, roles)).toEqual([]);
    expect(fieldsNaming(fields, { note: `user:${IVAN}` }, IVAN, roles)).toEqual([]);
    expect(fieldsNaming(fields, { inspector: 'user:ivan', crew: null }, IVAN, roles)).toEqual([]);
    expect(fieldsNaming(fields, { crew: [`role:${DIVERS}`] }, OLGA, new Map())).toEqual([]);
  });
});

describe('a person taken out of a user field', () => {
  it('empties a single value naming them and keeps one naming someone else', () => {
    expect(withoutPerson(`user:${IVAN}`, IVAN)).toBeNull();
    expect(withoutPerson(IVAN, IVAN)).toBeNull();
    expect(withoutPerson(`user:${OLGA}`, IVAN)).toBe(`user:${OLGA}`);
  });

  it('takes them out of a list and leaves roles and other people in their order', () => {
    expect(withoutPerson([`user:${OLGA}`, `user:${IVAN}`, `role:${DIVERS}`], IVAN)).toEqual([
      `user:${OLGA}`,
      `role:${DIVERS}`,
    ]);
  });
});

describe('assignees by the people chosen', () => {
  it('keeps the entries of people already assigned and adds others as assigned here by hand', () => {
    const kept = {
      userId: IVAN,
      source: 'field',
      delegated_from_user_id: null,
      pending_review: true,
      addedAt: '2026-01-01T00:00:00.000Z',
    };
    const [ivan, olga] = withAssignees([kept], [IVAN, OLGA]);
    expect(ivan).toBe(kept);
    expect(olga).toMatchObject({ userId: OLGA, source: 'manual', delegated_from_user_id: null, pending_review: false });
  });
});
