import type { Directory } from '@shared/api/directories';
import type { FieldType } from '@shared/api/forms';
import type { ProblemFieldError } from '@shared/api/problem';
import { Button, Checkbox, Empty, Input, Select, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type FieldDraft, MULTIPLE_TYPES, moved } from './draft';
import { InlineProblems } from './problem-text';

interface Props {
  fields: FieldDraft[];
  onChange: (fields: FieldDraft[]) => void;
  directories: Directory[] | undefined;
  problems: Record<string, Record<string, ProblemFieldError>>;
  readOnly: boolean;
}

/** Every type the API offers, in menu order; a Record so a new type cannot be left out. */
const TYPE_ORDER: Record<FieldType, number> = {
  text: 0,
  number: 1,
  date: 2,
  checkbox: 3,
  select: 4,
  user: 5,
  table: 6,
  document_template: 7,
};
const FIELD_TYPES = (Object.keys(TYPE_ORDER) as FieldType[]).sort((a, b) => TYPE_ORDER[a] - TYPE_ORDER[b]);

/** The multiple-values checkbox's caption differs by type: options, users and roles, or rows. */
const MULTIPLE_CAPTION = { select: 'multipleSelect', user: 'multipleUser', table: 'multipleTable' } as const;

/** The settings only some types have: choices, a directory and its column, several values. */
function TypeSettings({
  field,
  n,
  update,
  directories,
  readOnly,
}: {
  field: FieldDraft;
  n: number;
  update: (patch: Partial<FieldDraft>) => void;
  directories: Directory[] | undefined;
  readOnly: boolean;
}) {
  const { t } = useTranslation();
  const directory = directories?.find((d) => d.id === field.directoryId);
  const multiple = MULTIPLE_TYPES.has(field.type) && (
    <Checkbox
      aria-label={t('formEditor.fieldMultiple', { n })}
      checked={field.allow_multiple}
      disabled={readOnly}
      onChange={(event) => update({ allow_multiple: event.target.checked })}
    >
      {t(`formEditor.${MULTIPLE_CAPTION[field.type as keyof typeof MULTIPLE_CAPTION]}`)}
    </Checkbox>
  );
  switch (field.type) {
    case 'select':
      return (
        <Space wrap size={8}>
          <Select
            mode="tags"
            aria-label={t('formEditor.fieldOptions', { n })}
            placeholder={t('formEditor.optionsPlaceholder')}
            value={field.options}
            disabled={readOnly}
            onChange={(options: string[]) => update({ options })}
            tokenSeparators={['\n']}
            suffixIcon={null}
            notFoundContent={null}
            style={{ minWidth: 320 }}
            size="small"
          />
          {multiple}
        </Space>
      );
    case 'user':
      return multiple;
    case 'table':
      if (directories && directories.length === 0 && !field.directoryId) {
        return (
          <Typography.Text type="secondary">
            {t('formEditor.noDirectories')} <Link to="/directories">{t('formEditor.openDirectories')}</Link>
          </Typography.Text>
        );
      }
      return (
        <Space wrap size={8}>
          <Select
            aria-label={t('formEditor.fieldDirectory', { n })}
            placeholder={t('formEditor.directoryPlaceholder')}
            value={field.directoryId ?? undefined}
            disabled={readOnly}
            loading={!directories}
            showSearch={{ optionFilterProp: 'label' }}
            // Another directory has other columns: the chosen column no longer applies.
            onChange={(directoryId: string) => update({ directoryId, displayColumn: null })}
            options={(directories ?? []).map((d) => ({ value: d.id, label: d.name }))}
            style={{ width: 200 }}
            size="small"
          />
          <Select
            aria-label={t('formEditor.fieldDisplayColumn', { n })}
            placeholder={t('formEditor.displayColumnPlaceholder')}
            value={field.displayColumn ?? undefined}
            disabled={readOnly || !directory}
            allowClear
            onChange={(displayColumn: string | undefined) => update({ displayColumn: displayColumn ?? null })}
            options={(directory?.columns ?? []).map((column) => ({ value: column.name, label: column.name }))}
            style={{ width: 220 }}
            size="small"
          />
          {multiple}
        </Space>
      );
    case 'document_template':
      return <Typography.Text type="secondary">{t('formEditor.documentTemplate')}</Typography.Text>;
    default:
      return <Typography.Text type="secondary">{t('formEditor.noSettings')}</Typography.Text>;
  }
}

/** The form's fields as one dense table: name, type, required flag, type settings and order. */
export function FieldsEditor({ fields, onChange, directories, problems, readOnly }: Props) {
  const { t } = useTranslation();
  const update = (key: string, patch: Partial<FieldDraft>) =>
    onChange(fields.map((field) => (field.key === key ? { ...field, ...patch } : field)));
  return (
    <Table<FieldDraft>
      rowKey="key"
      size="small"
      pagination={false}
      dataSource={fields}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('formEditor.noFields')} /> }}
      columns={[
        {
          title: t('formEditor.columns.position'),
          width: 44,
          render: (_, _field, index) => index + 1,
        },
        {
          title: t('formEditor.columns.name'),
          width: 260,
          render: (_, field, index) => {
            const error = problems[field.key]?.name;
            return (
              <>
                <Input
                  size="small"
                  aria-label={t('formEditor.fieldName', { n: index + 1 })}
                  value={field.name}
                  disabled={readOnly}
                  status={error ? 'error' : undefined}
                  maxLength={200}
                  onChange={(event) => update(field.key, { name: event.target.value })}
                />
                <InlineProblems errors={[error]} />
              </>
            );
          },
        },
        {
          title: t('formEditor.columns.type'),
          width: 170,
          render: (_, field, index) => (
            <>
              <Select<FieldType>
                size="small"
                aria-label={t('formEditor.fieldType', { n: index + 1 })}
                value={field.type}
                disabled={readOnly}
                status={problems[field.key]?.type ? 'error' : undefined}
                onChange={(type) => update(field.key, { type })}
                options={FIELD_TYPES.map((type) => ({ value: type, label: t(`formEditor.types.${type}`) }))}
                style={{ width: '100%' }}
              />
              <InlineProblems errors={[problems[field.key]?.type]} />
            </>
          ),
        },
        {
          title: t('formEditor.columns.required'),
          width: 110,
          align: 'center',
          render: (_, field, index) => (
            <Checkbox
              aria-label={t('formEditor.fieldRequired', { n: index + 1 })}
              checked={field.required}
              disabled={readOnly}
              onChange={(event) => update(field.key, { required: event.target.checked })}
            />
          ),
        },
        {
          title: t('formEditor.columns.settings'),
          render: (_, field, index) => {
            const { name: _name, type: _type, ...rest } = problems[field.key] ?? {};
            return (
              <>
                <TypeSettings
                  field={field}
                  n={index + 1}
                  update={(patch) => update(field.key, patch)}
                  directories={directories}
                  readOnly={readOnly}
                />
                <InlineProblems errors={Object.values(rest)} />
              </>
            );
          },
        },
        {
          title: t('formEditor.columns.actions'),
          width: 112,
          render: (_, field, index) => (
            <Space.Compact size="small">
              <Button
                aria-label={t('formEditor.fieldUp', { n: index + 1 })}
                disabled={readOnly || index === 0}
                onClick={() => onChange(moved(fields, index, -1))}
              >
                ↑
              </Button>
              <Button
                aria-label={t('formEditor.fieldDown', { n: index + 1 })}
                disabled={readOnly || index === fields.length - 1}
                onClick={() => onChange(moved(fields, index, 1))}
              >
                ↓
              </Button>
              <Button
                danger
                aria-label={t('formEditor.fieldRemove', { n: index + 1 })}
                disabled={readOnly}
                onClick={() => onChange(fields.filter((f) => f.key !== field.key))}
              >
                ✕
              </Button>
            </Space.Compact>
          ),
        },
      ]}
    />
  );
}
