import type { LostEdit } from '@shared/sync';
import {
  Alert,
  Form as AntForm,
  Button,
  Card,
  Checkbox,
  DatePicker,
  Input,
  Popconfirm,
  Select,
  Space,
  TreeSelect,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rowEditLabel, shownEditValue } from '../common/edit-words';
import { LostEdits } from '../common/lost-edits';
import {
  addRow,
  type Cell,
  type ColumnType,
  type Directory,
  deleteRow,
  fieldErrors,
  placeNodes,
  type Row,
  type RowDeletion,
  type RowEdit,
  saveFailureText,
  saveRow,
  subtreeIds,
  type TreeNodeShape,
} from './data';

const TOP_LEVEL = '';

interface TreeOption {
  value: string;
  title: string;
  disabled?: boolean;
  children: TreeOption[];
}

/** An editor for a value of the column's type; the server normalises what is saved. */
function CellInput({ type, label, ...control }: { type: ColumnType; label: string } & Record<string, unknown>) {
  switch (type) {
    case 'number':
      return <Input {...control} inputMode="decimal" aria-label={label} />;
    case 'date':
      return <DatePicker {...control} aria-label={label} format="YYYY-MM-DD" style={{ width: '100%' }} />;
    case 'checkbox':
      return <Checkbox {...control} aria-label={label} />;
    default:
      return <Input {...control} aria-label={label} />;
  }
}

function initialValue(type: ColumnType, cell: Cell | undefined): unknown {
  if (cell === null || cell === undefined) return type === 'checkbox' ? false : undefined;
  if (type === 'date') return typeof cell === 'string' && dayjs(cell).isValid() ? dayjs(cell) : undefined;
  if (type === 'checkbox') return cell === true;
  return String(cell);
}

function cellValue(type: ColumnType, value: unknown): Cell {
  if (type === 'checkbox') return value === true;
  if (value === undefined || value === null || value === '') return null;
  if (dayjs.isDayjs(value)) return value.format('YYYY-MM-DD');
  return String(value);
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

/** The rows as choices of a new parent: the row itself and its descendants cannot be chosen. */
function moveOptions(nodes: readonly TreeNodeShape[], excluded: ReadonlySet<string>, empty: string): TreeOption[] {
  return nodes.map((node) => ({
    value: node.id,
    title: node.label || empty,
    disabled: excluded.has(node.id),
    children: moveOptions(node.children, excluded, empty),
  }));
}

/** The options that hold others: the ones a tree can open. */
function parentOptionKeys(options: readonly TreeOption[]): string[] {
  return options.flatMap((option) =>
    option.children.length > 0 ? [option.value, ...parentOptionKeys(option.children)] : [],
  );
}

interface RowEditorProps {
  directory: Directory;
  /** The row being edited; none for a new row. */
  row: Row | undefined;
  /** Parent of a new row, and its label. */
  parent: { id: string | null; label: string };
  /** The parent-link tree, for choosing a new parent by keyboard. */
  parentTree: TreeNodeShape[];
  /** Rows of the parent directory a sub-directory row may be offered under; undefined for a plain directory. */
  parentRowOptions: { value: string; label: string }[] | undefined;
  /** `offline`: kept on this device until the server can be reached. */
  onSaved: (row: Row, offline: boolean) => void;
  onDeleted: (deletion: RowDeletion) => void;
  onAddChild: () => void;
  onMove: (parentId: string | null) => void;
  onClose: () => void;
  /**
   * The row was deleted elsewhere while it was open: the editor keeps what was typed, says so and
   * offers to bring the row back (`onRestore`) before it can be saved.
   */
  gone?: boolean;
  onRestore?: () => Promise<void>;
}

/** One row's cells with typed editors, its binding to parent-directory rows, and its actions. */
export function RowEditor(props: RowEditorProps) {
  const { t } = useTranslation();
  const { directory, row } = props;
  const [form] = AntForm.useForm();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [restoring, setRestoring] = useState(false);
  const restore = async () => {
    setRestoring(true);
    try {
      await props.onRestore?.();
      setError(undefined);
    } catch (caught) {
      setError(saveFailureText(caught, t));
    } finally {
      setRestoring(false);
    }
  };
  const initial = useMemo(
    () => ({
      cells: directory.columns.map((column, index) => initialValue(column.type, row?.cells[index])),
      parentRowIds: row?.parentRowIds ?? [],
    }),
    [directory.columns, row],
  );
  // The row changed while the editor is open (a colleague's change, pulled): the values the user
  // has not touched show it; those they changed stay as they typed them. Saved, only what differs
  // from the row as it now is goes (`editOf` compares with `initial`). A layout effect: the fields
  // show the new row before any click is handled, or a save between the two would send the old value
  // of an untouched cell as a change and undo the colleague's.
  const firstShown = useRef(initial);
  useLayoutEffect(() => {
    if (firstShown.current === initial) return;
    const fields = directory.columns.flatMap((_column, index) =>
      form.isFieldTouched(['cells', index]) ? [] : [{ name: ['cells', index], value: initial.cells[index] }],
    );
    if (!form.isFieldTouched('parentRowIds')) fields.push({ name: ['parentRowIds'], value: initial.parentRowIds });
    form.setFields(fields);
  }, [form, initial, directory.columns]);

  const moveTree = useMemo(() => {
    const excluded = new Set<string>();
    const walk = (nodes: readonly TreeNodeShape[]) => {
      for (const node of nodes) {
        if (node.id === row?.id) for (const id of subtreeIds(node)) excluded.add(id);
        else walk(node.children);
      }
    };
    walk(props.parentTree);
    return [
      { value: TOP_LEVEL, title: t('directories.topLevel'), children: [] },
      ...moveOptions(props.parentTree, excluded, t('directories.noLabel')),
    ];
  }, [props.parentTree, row?.id, t]);
  // Every row with rows under it is shown open, those the user closed aside: a row a colleague's
  // change put under another while the editor is open shows too (expanding only when the list was
  // first opened would hide it).
  const [closedInMoveTree, setClosedInMoveTree] = useState<ReadonlySet<string>>(new Set());
  const moveTreeParents = useMemo(() => parentOptionKeys(moveTree), [moveTree]);
  const moveTreeOpen = useMemo(
    () => moveTreeParents.filter((key) => !closedInMoveTree.has(key)),
    [moveTreeParents, closedInMoveTree],
  );

  // What the user changed of what the editor showed: only that is saved, so a colleague's change
  // of another cell or of the bindings, made while the editor was open, stays.
  const editOf = (cells: Cell[], parentRowIds: string[]): RowEdit => {
    const shown = directory.columns.map((column, index) => cellValue(column.type, initial.cells[index]));
    const changed = Object.fromEntries(
      cells.flatMap((cell, index) => (cell === shown[index] ? [] : [[String(index), cell]])),
    );
    return {
      ...(Object.keys(changed).length > 0 ? { cells: changed } : {}),
      ...(sameIds(parentRowIds, initial.parentRowIds) ? {} : { parentRowIds }),
    };
  };

  const save = async (values: { cells?: unknown[]; parentRowIds?: string[] }) => {
    const cells = directory.columns.map((column, index) => cellValue(column.type, values.cells?.[index]));
    const parentRowIds = values.parentRowIds ?? [];
    setSaving(true);
    try {
      const saved = row
        ? await saveRow(directory.id, row, editOf(cells, parentRowIds))
        : await addRow(directory.id, { cells, parentRowIds, parentId: props.parent.id });
      setError(undefined);
      props.onSaved(saved.row, saved.offline);
    } catch (caught) {
      setError(saveFailureText(caught, t));
      // Field errors point at `#/cells/<index>` or `#/parentRowIds/<index>`: show them at the editor.
      form.setFields(
        fieldErrors(caught).flatMap((e) => {
          const [, where, index] = e.pointer.split('/');
          if (where === 'cells') return [{ name: ['cells', Number(index)], errors: [e.detail] }];
          if (where === 'parentRowIds') return [{ name: ['parentRowIds'], errors: [e.detail] }];
          return [];
        }),
      );
    } finally {
      setSaving(false);
    }
  };

  // Offline edits of this row the server did not keep: `cells.<index>`, `parentId`, `_deleted`.
  const lostLabel = (edit: LostEdit) => rowEditLabel(t, directory, edit);

  // The values of a lost edit in the user's words: rows by their labels, a deletion as such.
  const places = useMemo(() => placeNodes(props.parentTree), [props.parentTree]);
  const lostValue = (edit: LostEdit, value: unknown) => {
    if (edit.path === '_deleted') return value ? t('directories.rowWasDeleted') : t('directories.rowNotDeleted');
    if (edit.path === 'parentId') {
      if (value === null || value === undefined) return t('directories.topLevel');
      return places.get(String(value))?.node.label || t('directories.noLabel');
    }
    if (edit.path === 'parentRowIds' && Array.isArray(value)) {
      const labels = value.map(
        (id) => props.parentRowOptions?.find((option) => option.value === id)?.label || t('directories.noLabel'),
      );
      return shownEditValue(labels.join(', '));
    }
    return shownEditValue(value);
  };

  // A value the server did not keep, made again as an edit made here now (saved as the editor saves).
  const applyLost = (edit: LostEdit) => {
    if (!row) return undefined;
    const resave = (change: RowEdit) => async () => {
      const saved = await saveRow(directory.id, row, change);
      props.onSaved(saved.row, saved.offline);
    };
    const cell = /^cells\.(\d+)$/.exec(edit.path)?.[1];
    if (cell !== undefined) return resave({ cells: { [cell]: (edit.attempted ?? null) as Cell } });
    if (edit.path === 'parentRowIds' && Array.isArray(edit.attempted)) {
      return resave({ parentRowIds: edit.attempted.map(String) });
    }
    if (edit.path === 'parentId') {
      const parentId = typeof edit.attempted === 'string' ? edit.attempted : null;
      return async () => props.onMove(parentId);
    }
    if (edit.path === '_deleted') {
      // Failing, it says why where the user pressed, and the lost edit stays.
      return async () => props.onDeleted(await deleteRow(directory.id, row));
    }
    return undefined;
  };

  const remove = async () => {
    if (!row) return;
    try {
      props.onDeleted(await deleteRow(directory.id, row));
    } catch (caught) {
      setError(saveFailureText(caught, t));
    }
  };

  return (
    <Card
      size="small"
      title={row ? t('directories.rowTitle') : t('directories.newRow')}
      extra={
        <Button size="small" type="text" aria-label={t('directories.closeRow')} onClick={props.onClose}>
          ×
        </Button>
      }
      data-testid="row-editor"
    >
      {!row && (
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {props.parent.id ? t('directories.newChildOf', { name: props.parent.label }) : t('directories.newRootRow')}
        </Typography.Paragraph>
      )}
      {error && <Alert type="error" title={error} role="alert" style={{ marginBottom: 8 }} />}
      {props.gone && (
        <Alert
          type="warning"
          role="alert"
          data-testid="row-gone"
          style={{ marginBottom: 8 }}
          title={t('directories.rowGoneWhileOpen')}
          action={
            props.onRestore && (
              <Button size="small" loading={restoring} onClick={() => void restore()}>
                {t('directories.restoreRow')}
              </Button>
            )
          }
        />
      )}
      {row && <LostEdits recordId={row.id} label={lostLabel} show={lostValue} apply={applyLost} />}
      <AntForm form={form} layout="vertical" size="small" initialValues={initial} onFinish={save}>
        {directory.columns.map((column, index) => (
          <AntForm.Item
            // Columns are only ever appended, so the index is a stable identity.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above.
            key={index}
            name={['cells', index]}
            label={column.name}
            valuePropName={column.type === 'checkbox' ? 'checked' : 'value'}
            style={{ marginBottom: 8 }}
          >
            <CellInput type={column.type} label={column.name} />
          </AntForm.Item>
        ))}
        {props.parentRowOptions && (
          <AntForm.Item
            name="parentRowIds"
            label={t('directories.offeredUnder')}
            extra={t('directories.offeredUnderHint')}
            style={{ marginBottom: 8 }}
          >
            <Select
              mode="multiple"
              allowClear
              aria-label={t('directories.offeredUnder')}
              showSearch={{ optionFilterProp: 'label' }}
              options={props.parentRowOptions}
            />
          </AntForm.Item>
        )}
        <Space wrap>
          <Button type="primary" htmlType="submit" loading={saving} disabled={props.gone}>
            {row ? t('directories.save') : t('directories.create')}
          </Button>
          {row && !props.gone && <Button onClick={props.onAddChild}>{t('directories.addChild')}</Button>}
          {row && !props.gone && (
            <Popconfirm
              title={t('directories.deleteRowTitle')}
              description={t('directories.deleteRowText')}
              okText={t('directories.delete')}
              cancelText={t('directories.cancel')}
              onConfirm={remove}
            >
              <Button danger>{t('directories.deleteRow')}</Button>
            </Popconfirm>
          )}
        </Space>
      </AntForm>
      {row && !props.gone && (
        <div style={{ marginTop: 12 }}>
          <Typography.Text type="secondary">{t('directories.moveTo')}</Typography.Text>
          <TreeSelect
            aria-label={t('directories.moveTo')}
            size="small"
            style={{ width: '100%' }}
            value={row.parentId ?? TOP_LEVEL}
            treeData={moveTree}
            treeExpandedKeys={moveTreeOpen}
            onTreeExpand={(keys) => {
              const open = new Set(keys.map(String));
              setClosedInMoveTree(new Set(moveTreeParents.filter((key) => !open.has(key))));
            }}
            showSearch
            treeNodeFilterProp="title"
            onChange={(value: string) => props.onMove(value === TOP_LEVEL ? null : value)}
          />
        </div>
      )}
    </Card>
  );
}
