import type { FormField } from '@shared/api/forms';
import { describe, expect, it } from 'vitest';
import { displayColumnIndex, fieldValueText, type ValueNames } from './field-values';

const field = (type: FormField['type'], extra: Partial<FormField> = {}): FormField => ({
  id: '00000000-0000-4000-8000-000000000001',
  name: 'Field',
  type,
  required: false,
  options: null,
  allow_multiple: false,
  directoryId: null,
  displayColumn: null,
  ...extra,
});

const names: ValueNames = {
  person: (value) => ({ 'user:u1': 'Anna', 'role:r1': 'Dispatchers' })[value] ?? value,
  row: (_field, id) => ({ row1: 'South station' })[id],
  yes: 'Yes',
  no: 'No',
  language: 'en-US',
};

describe('stored values in words', () => {
  it('shows nothing as a dash, never as null or quotes', () => {
    for (const empty of [null, undefined, '', []]) expect(fieldValueText(field('text'), empty, names)).toBe('—');
    expect(fieldValueText(field('text'), 'Gauge replaced', names)).toBe('Gauge replaced');
    expect(fieldValueText(field('number'), '2500', names)).toBe('2500');
    expect(fieldValueText(field('select'), 'High', names)).toBe('High');
  });

  it('names people, roles and directory rows, several joined', () => {
    expect(fieldValueText(field('user'), 'user:u1', names)).toBe('Anna');
    expect(fieldValueText(field('user', { allow_multiple: true }), ['user:u1', 'role:r1'], names)).toBe(
      'Anna, Dispatchers',
    );
    expect(fieldValueText(field('table'), 'row1', names)).toBe('South station');
    // A row this device does not have keeps its id rather than showing nothing.
    expect(fieldValueText(field('table'), 'row9', names)).toBe('row9');
  });

  it('says yes or no for checkboxes and writes dates in the interface language, whatever the time zone', () => {
    expect(fieldValueText(field('checkbox'), true, names)).toBe('Yes');
    expect(fieldValueText(field('checkbox'), false, names)).toBe('No');
    expect(fieldValueText(field('date'), '2026-03-01', names)).toBe('3/1/2026');
    expect(fieldValueText(field('date'), '2026-03-01', { ...names, language: 'ru' })).toBe('01.03.2026');
    expect(fieldValueText(field('date'), 'not a date', names)).toBe('not a date');
  });

  it('labels table rows by the field’s display column, else the directory’s tree column', () => {
    const directory = { columns: [{ name: 'Code' }, { name: 'Name' }], tree_display_column_index: 0 };
    expect(displayColumnIndex(directory, field('table', { displayColumn: 'name' }))).toBe(1);
    expect(displayColumnIndex(directory, field('table', { displayColumn: 'Missing' }))).toBe(0);
    expect(displayColumnIndex(directory, field('table'))).toBe(0);
    expect(displayColumnIndex(undefined, field('table'))).toBe(0);
  });
});
