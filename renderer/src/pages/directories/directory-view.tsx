import { directoriesApi } from '@shared/api/directories';
import { Alert, Button, Card, Empty, Input, Select, Space, Spin, Tag, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiError, call, saveBlob } from '../../api';
import { useReplica } from '../../data/replica-context';
import { useMessage } from '../../messages';
import { showUndoable } from '../common/undo-notice';
import { CsvImport } from './csv-import';
import {
  cellText,
  type Directory,
  failureText,
  fetchAllRows,
  fetchCsvExport,
  fetchDirectory,
  filterTree,
  groupRows,
  moveInTree,
  moveRow,
  type Row,
  rowChangeIsShown,
  saveFailureText,
  type TreeNodeShape,
  treeFromRows,
  useLoad,
} from './data';
import { DeletedRows } from './deleted-rows';
import { DirectoryForm } from './directory-form';
import { RowEditor } from './row-editor';
import { RowTree } from './row-tree';

/** How long the view waits for the replica's changes to its rows to pause before it reads them again. */
const LIVE_REFRESH_MS = 250;
const NO_ROWS: ReadonlyMap<string, Row> = new Map();

/** Search parameter values of the tree-mode select: the parent-link tree, or a column index. */
const BY_PARENT = 'none';

type Editing = { kind: 'edit'; rowId: string } | { kind: 'new'; parentId: string | null };

interface Loaded {
  rows: Row[];
  tree: TreeNodeShape[];
  /** The grouping column the tree was built for: the view may already ask for another one. */
  groupIndex: number | null;
}

/** The tree the view asks for: by parent links, or grouped by a column's values; labelled by a column. */
async function loadRows(directory: Directory, groupIndex: number | null, labelIndex: number): Promise<Loaded> {
  const rows = await fetchAllRows(directory.id);
  const query = { displayColumnIndex: labelIndex, treeColumnIndex: groupIndex ?? ('none' as const) };
  try {
    const tree = await call(directoriesApi.getRowTree, { params: { directoryId: directory.id }, query });
    return { rows, tree: tree.nodes, groupIndex };
  } catch (caught) {
    // Without the server the rows came from the replica: the tree is built from them here.
    if (!(caught instanceof ApiError && caught.problem.status === 0)) throw caught;
    const tree = groupIndex === null ? treeFromRows(rows, labelIndex) : groupRows(rows, groupIndex, labelIndex);
    return { rows, tree, groupIndex };
  }
}

function fileName(name: string): string {
  return `${name.replace(/[\\/:*?"<>|]+/g, '_').trim() || 'directory'}.csv`;
}

interface DirectoryViewProps {
  directoryId: string;
  directories: Directory[];
  isAdmin: boolean;
  /** The directory's name or settings changed: the list shows them anew. */
  onDirectoryChanged: () => void;
}

/** One directory: its rows as a tree with editing, drag-and-drop, grouping, filters, CSV import and export. */
export function DirectoryView({ directoryId, directories, isAdmin, onDirectoryChanged }: DirectoryViewProps) {
  const { t } = useTranslation();
  const message = useMessage();
  const [params, setParams] = useSearchParams();
  const directory = useLoad(directoryId, () => fetchDirectory(directoryId));
  // A rename in the list is newer than the directory this view loaded: the newer one is shown.
  const listed = directories.find((d) => d.id === directoryId);
  const current = listed && directory.data && listed.updatedAt > directory.data.updatedAt ? listed : directory.data;
  const [version, setVersion] = useState(0);
  // Saves made in the row editor: each opens it afresh on what was saved.
  const [saves, setSaves] = useState(0);
  const refresh = () => {
    setQuiet(false);
    setVersion((v) => v + 1);
  };
  // Back online with everything sent, the rows are read from the server again: the view shows what
  // was merged there (a deletion or an edit the server did not keep comes back). Only after the
  // view saw the connection lost (once it had it) or changes waiting: a replica opening while rows
  // are shown says "not connected" before its first connection, which changes nothing they show.
  const { status, replica } = useReplica();
  const online = Boolean(status?.online);
  const waiting = (status?.pending ?? 0) > 0;
  const seen = useRef({ online: false, stale: false });
  useEffect(() => {
    const view = seen.current;
    if (waiting || (!online && view.online)) view.stale = true;
    else if (online && view.stale) {
      view.stale = false;
      setVersion((v) => v + 1);
    }
    view.online = online;
  }, [online, waiting]);

  // A change of this directory's rows reaching the replica (a colleague's, pulled from the server;
  // or one made here) is shown: the rows are read again once changes pause — quietly (the tree
  // stays usable, no spinner over it) and not in the middle of a drag, which a rebuilt tree loses.
  // Changes the view already shows (the replica catching up with rows read from the server) are
  // told apart once the read under way, if any, is in: they need no read.
  const currentId = current?.id;
  const draggingRow = useRef(false);
  const shownInEditor = useRef<Row | undefined>(undefined);
  const [quiet, setQuiet] = useState(false);
  // The rows the view shows, or undefined while they are being read.
  const shownRows = useRef<ReadonlyMap<string, Row> | undefined>(undefined);
  useEffect(() => {
    if (!replica || !currentId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arrived = new Map<string, { id: string; deleted: boolean; row: Row | undefined }>();
    const readAgain = () => {
      const shown = shownRows.current;
      if (draggingRow.current || !shown) {
        timer = setTimeout(readAgain, LIVE_REFRESH_MS);
        return;
      }
      const news = [...arrived.values()].some((change) => !rowChangeIsShown(shown, change));
      arrived.clear();
      if (!news) return;
      setQuiet(true);
      setVersion((v) => v + 1);
    };
    const subscription = replica.db.directory_rows.$.subscribe((event) => {
      const touched = [event.documentData, event.previousDocumentData].some(
        (document) => (document as { directoryId?: string } | undefined)?.directoryId === currentId,
      );
      if (!touched) return;
      const deleted = event.operation === 'DELETE';
      arrived.set(event.documentId, {
        id: event.documentId,
        deleted,
        row: event.documentData as unknown as Row | undefined,
      });
      clearTimeout(timer);
      timer = setTimeout(readAgain, LIVE_REFRESH_MS);
    });
    return () => {
      subscription.unsubscribe();
      clearTimeout(timer);
    };
  }, [replica, currentId]);

  const groupParam = params.get('group');
  const groupIndex =
    groupParam === null ? (current?.treeColumnIndex ?? null) : groupParam === BY_PARENT ? null : Number(groupParam);
  const labelParam = params.get('label');
  const labelIndex = labelParam === null ? (current?.tree_display_column_index ?? 0) : Number(labelParam);
  const search = params.get('q') ?? '';
  const under = params.get('under') ?? '';
  const setParam = useCallback(
    (name: string, value: string | null) =>
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          if (value === null || value === '') next.delete(name);
          else next.set(name, value);
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  const data = useLoad(
    current ? `${current.id}|${current.updatedAt}|${groupIndex}|${labelIndex}|${version}` : undefined,
    () => loadRows(current as Directory, groupIndex, labelIndex),
  );
  const filtered = Boolean(search || under);
  const matches = useLoad(current && filtered ? `${current.id}|${search}|${under}|${version}` : undefined, () =>
    fetchAllRows(directoryId, { ...(search ? { q: search } : {}), ...(under ? { parentRowId: under } : {}) }),
  );

  const parentDirectoryId = current?.parentDirectoryId ?? undefined;
  const parentDirectory = useLoad(parentDirectoryId, () => fetchDirectory(parentDirectoryId as string));
  const parentRows = useLoad(parentDirectoryId, () => fetchAllRows(parentDirectoryId as string));

  const [editing, setEditing] = useState<Editing>();
  // A link to one row (`?row=`, as the notice of lost edits gives) opens it in the editor.
  const linkedRow = params.get('row');
  useEffect(() => {
    if (!linkedRow) return;
    setEditing({ kind: 'edit', rowId: linkedRow });
    setParam('row', null);
  }, [linkedRow, setParam]);
  const [notice, setNotice] = useState<string>();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [deletedOpen, setDeletedOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  // The tree shown while a move waits for the server; cleared by every load.
  const [pending, setPending] = useState<TreeNodeShape[] | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new load replaces the tree shown in advance.
  useEffect(() => setPending(null), [data.data]);

  const rows = data.data?.rows ?? [];
  const rowsById = useMemo(() => new Map((data.data?.rows ?? []).map((row) => [row.id, row])), [data.data]);
  // A view that could not read its rows shows none: any change is worth a read.
  shownRows.current = data.loading ? undefined : data.error || !data.data ? NO_ROWS : rowsById;
  const parentTree = useMemo(() => treeFromRows(data.data?.rows ?? [], labelIndex), [data.data, labelIndex]);
  const tree = pending ?? data.data?.tree ?? [];
  const shown = useMemo(
    () =>
      filtered && matches.data
        ? filterTree(tree, new Set(matches.data.map((row) => row.id)))
        : { nodes: tree, context: new Set<string>() },
    [filtered, matches.data, tree],
  );

  const parentLabelIndex = parentDirectory.data?.tree_display_column_index ?? 0;
  const parentRowLabels = useMemo(
    () =>
      new Map(
        (parentRows.data ?? []).map((row) => [
          row.id,
          cellText(row.cells[parentLabelIndex]) || t('directories.noLabel'),
        ]),
      ),
    [parentRows.data, parentLabelIndex, t],
  );
  // A sub-directory bound to chosen parent rows offers its rows only under those.
  const parentRowOptions = parentDirectoryId
    ? (parentRows.data ?? [])
        .filter((row) => !current?.parentRowIds.length || current.parentRowIds.includes(row.id))
        .map((row) => ({ value: row.id, label: parentRowLabels.get(row.id) ?? row.id }))
    : undefined;

  if (directory.error) return <Alert type="error" role="alert" title={directory.error} />;
  if (!current) return <Spin description={t('directories.loading')} />;

  const subDirectories = directories.filter((d) => d.parentDirectoryId === current.id);
  const parentName = directories.find((d) => d.id === parentDirectoryId)?.name ?? parentDirectory.data?.name;
  const grouped = (data.data ? data.data.groupIndex : groupIndex) !== null;
  const viewIsDefault = groupIndex === current.treeColumnIndex && labelIndex === current.tree_display_column_index;
  const editedRow = editing?.kind === 'edit' ? rowsById.get(editing.rowId) : undefined;
  // The row open in the editor as last shown: kept when it vanishes, deleted elsewhere meanwhile
  // (the user's own deletion closes the editor first), so what was typed in it is not lost.
  if (editedRow) shownInEditor.current = editedRow;
  const goneRow =
    editing?.kind === 'edit' && !editedRow && shownInEditor.current?.id === editing.rowId
      ? shownInEditor.current
      : undefined;
  const newParentId = editing?.kind === 'new' ? editing.parentId : null;
  const labelOf = (rowId: string | null) =>
    rowId ? cellText(rowsById.get(rowId)?.cells[labelIndex]) || t('directories.noLabel') : '';

  const move = async (rowId: string, parentId: string | null, position: number) => {
    const moved = rowsById.get(rowId);
    if (!data.data || !moved) return;
    setPending(moveInTree(pending ?? data.data.tree, rowId, parentId, position));
    setNotice(undefined);
    try {
      const { offline } = await moveRow(current.id, moved, parentId, position);
      if (offline) message.info(t('directories.savedOffline'));
      refresh();
    } catch (caught) {
      // Refused: the tree goes back to what it was, and the server says why.
      setPending(null);
      setNotice(saveFailureText(caught, t));
    }
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveBlob(await fetchCsvExport(current.id), fileName(current.name));
    } catch (caught) {
      setNotice(failureText(caught, t));
    } finally {
      setExporting(false);
    }
  };

  const saveViewAsDefault = async () => {
    try {
      await call(directoriesApi.updateDirectory, {
        params: { directoryId: current.id },
        body: { tree_display_column_index: labelIndex, treeColumnIndex: groupIndex },
      });
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          next.delete('group');
          next.delete('label');
          return next;
        },
        { replace: true },
      );
      message.success(t('directories.viewSaved'));
      directory.reload();
    } catch (caught) {
      setNotice(failureText(caught, t));
    }
  };

  const columnOptions = current.columns.map((column, index) => ({ value: String(index), label: column.name }));
  const body = () => {
    if (data.error) {
      return (
        <Alert
          type="error"
          role="alert"
          title={data.error}
          action={
            <Button size="small" onClick={refresh}>
              {t('directories.retry')}
            </Button>
          }
        />
      );
    }
    if (!data.data) return <Spin description={t('directories.loading')} />;
    if (rows.length === 0) {
      return (
        <Empty description={t('directories.noRows')}>
          <Space>
            <Button type="primary" onClick={() => setEditing({ kind: 'new', parentId: null })}>
              {t('directories.addRow')}
            </Button>
            <Button onClick={() => setImportOpen(true)}>{t('directories.importCsv')}</Button>
          </Space>
        </Empty>
      );
    }
    if (matches.error) return <Alert type="error" role="alert" title={matches.error} />;
    if (filtered && !matches.data) return <Spin description={t('directories.loading')} />;
    if (shown.nodes.length === 0) return <Empty description={t('directories.noMatches')} />;
    return (
      <RowTree
        nodes={shown.nodes}
        rows={rowsById}
        columns={current.columns}
        displayColumnIndex={labelIndex}
        canDrag={!grouped && !filtered}
        context={shown.context}
        selectedRowId={editing?.kind === 'edit' ? editing.rowId : undefined}
        onSelect={(rowId) => setEditing({ kind: 'edit', rowId })}
        onMove={move}
        parentRowLabel={parentDirectoryId ? (id) => parentRowLabels.get(id) ?? id : undefined}
        onDragging={(dragging) => {
          draggingRow.current = dragging;
        }}
      />
    );
  };

  return (
    <div>
      <div
        style={{
          display: 'flex',
          flexWrap: 'wrap',
          gap: 8,
          justifyContent: 'space-between',
          alignItems: 'center',
          marginBottom: 8,
        }}
      >
        <Space wrap align="center">
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="directory-name">
            {current.name}
          </Typography.Title>
          {parentDirectoryId && (
            <Tag>
              {t('directories.subDirectoryOf')}{' '}
              <Link to={`/directories/${parentDirectoryId}`}>{parentName ?? '…'}</Link>
              {current.parentRowIds.length > 0 &&
                ` · ${t('directories.boundCount', { n: current.parentRowIds.length })}`}
            </Tag>
          )}
          {subDirectories.length > 0 && (
            <Typography.Text type="secondary">
              {t('directories.subDirectories')}{' '}
              {subDirectories.map((d, index) => (
                <span key={d.id}>
                  {index > 0 && ', '}
                  <Link to={`/directories/${d.id}`}>{d.name}</Link>
                </span>
              ))}
            </Typography.Text>
          )}
          {data.data && (
            <Typography.Text type="secondary" data-testid="row-count">
              {t('directories.rowCount', { n: rows.length })}
            </Typography.Text>
          )}
        </Space>
        <Space wrap size="small">
          <Button size="small" type="primary" onClick={() => setEditing({ kind: 'new', parentId: null })}>
            {t('directories.addRow')}
          </Button>
          <Button size="small" onClick={() => setImportOpen(true)}>
            {t('directories.importCsv')}
          </Button>
          <Button size="small" onClick={exportCsv} loading={exporting}>
            {t('directories.exportCsv')}
          </Button>
          <Button size="small" onClick={refresh}>
            {t('directories.reload')}
          </Button>
          <Button size="small" onClick={() => setDeletedOpen(true)}>
            {t('directories.deletedRows')}
          </Button>
          {isAdmin && (
            <Button size="small" onClick={() => setSettingsOpen(true)}>
              {t('directories.settings')}
            </Button>
          )}
        </Space>
      </div>
      <Space wrap size="small" style={{ marginBottom: 8 }}>
        <Select
          aria-label={t('directories.treeMode')}
          size="small"
          style={{ width: 190 }}
          value={groupIndex === null ? BY_PARENT : String(groupIndex)}
          onChange={(value: string) => setParam('group', value)}
          options={[
            { value: BY_PARENT, label: t('directories.byParent') },
            ...columnOptions.map((option) => ({
              value: option.value,
              label: t('directories.groupBy', { name: option.label }),
            })),
          ]}
        />
        <Select
          aria-label={t('directories.labelColumn')}
          size="small"
          style={{ width: 150 }}
          value={String(labelIndex)}
          onChange={(value: string) => setParam('label', value)}
          options={columnOptions.map((option) => ({
            value: option.value,
            label: t('directories.labelBy', { name: option.label }),
          }))}
        />
        {isAdmin && !viewIsDefault && (
          <Button size="small" onClick={saveViewAsDefault}>
            {t('directories.saveView')}
          </Button>
        )}
        <Input.Search
          aria-label={t('directories.search')}
          placeholder={t('directories.search')}
          size="small"
          allowClear
          defaultValue={search}
          onSearch={(value) => setParam('q', value.trim())}
          style={{ width: 170 }}
        />
        {parentRowOptions && (
          <Select
            aria-label={t('directories.underFilter')}
            placeholder={t('directories.underFilter')}
            size="small"
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            style={{ width: 190 }}
            value={under || undefined}
            onChange={(value: string | undefined) => setParam('under', value ?? null)}
            options={parentRowOptions}
          />
        )}
      </Space>
      {(grouped || filtered) && rows.length > 0 && (
        <Typography.Paragraph type="secondary" style={{ margin: '0 0 8px', fontSize: 12 }}>
          {grouped ? t('directories.groupedHint') : t('directories.filteredHint')}
        </Typography.Paragraph>
      )}
      {parentRows.error && <Alert type="error" role="alert" title={parentRows.error} style={{ marginBottom: 8 }} />}
      {notice && (
        <Alert
          type="error"
          role="alert"
          title={notice}
          closable={{ onClose: () => setNotice(undefined) }}
          style={{ marginBottom: 8 }}
          data-testid="directory-notice"
        />
      )}
      <div style={{ display: 'flex', gap: 12, alignItems: 'flex-start' }}>
        <Card size="small" style={{ flex: 1, minWidth: 0 }} styles={{ body: { padding: 8 } }}>
          <Spin spinning={data.loading && Boolean(data.data) && !quiet}>{body()}</Spin>
        </Card>
        {editing && (editing.kind === 'new' || editedRow || goneRow) && (
          <div style={{ width: 360, flex: 'none' }}>
            <RowEditor
              // A fresh editor for another row, or once the user saved (it then shows the row as the
              // server normalised it, or as the replica holds it). A colleague's change of the row
              // shown does not make a new one: the editor takes it into what the user did not touch.
              key={(editedRow ?? goneRow) ? `${(editedRow ?? goneRow)?.id}:${saves}` : `new:${newParentId}`}
              directory={current}
              row={editedRow ?? goneRow}
              gone={!editedRow && Boolean(goneRow)}
              onRestore={async () => {
                if (!goneRow) return;
                await call(directoriesApi.restoreRow, { params: { directoryId: current.id, rowId: goneRow.id } });
                refresh();
              }}
              parent={{ id: newParentId, label: labelOf(newParentId) }}
              parentTree={parentTree}
              parentRowOptions={parentRowOptions}
              onSaved={(row, offline) => {
                setSaves((count) => count + 1);
                if (offline) message.info(t('directories.savedOffline'));
                else message.success(t('directories.rowSaved'));
                setEditing({ kind: 'edit', rowId: row.id });
                refresh();
              }}
              onDeleted={(deletion) => {
                if (!editedRow) return;
                const rowId = editedRow.id;
                const label = labelOf(rowId);
                showUndoable(message, {
                  key: `row-deleted-${rowId}`,
                  text: deletion.offline ? t('directories.rowDeletedOffline') : t('directories.rowDeleted'),
                  undoLabel: t('directories.undoDelete'),
                  testId: 'row-deleted',
                  undo: async () => {
                    try {
                      // Keyed: a second undo of the same row replaces the first one's notice.
                      const key = `row-restored-${rowId}`;
                      if (await deletion.restore())
                        message.success({ key, content: t('directories.rowRestored', { label }) });
                      else message.info({ key, content: t('directories.rowRestoreNothing') });
                    } catch (caught) {
                      message.error(saveFailureText(caught, t));
                    }
                    refresh();
                  },
                });
                setEditing(undefined);
                refresh();
              }}
              onAddChild={() => editedRow && setEditing({ kind: 'new', parentId: editedRow.id })}
              onMove={(parentId) => {
                if (!editedRow) return;
                const siblings = rows.filter((row) => row.parentId === parentId && row.id !== editedRow.id);
                void move(editedRow.id, parentId, siblings.length);
              }}
              onClose={() => setEditing(undefined)}
            />
          </div>
        )}
      </div>
      {deletedOpen && (
        <DeletedRows
          directory={current}
          labelIndex={labelIndex}
          onClose={() => setDeletedOpen(false)}
          onRestored={refresh}
        />
      )}
      {settingsOpen && (
        <DirectoryForm
          directory={current}
          directories={directories}
          hasRows={rows.length > 0}
          onClose={() => setSettingsOpen(false)}
          onSaved={() => {
            setSettingsOpen(false);
            message.success(t('directories.directorySaved'));
            directory.reload();
            onDirectoryChanged();
          }}
        />
      )}
      {importOpen && (
        <CsvImport
          directory={current}
          onClose={() => setImportOpen(false)}
          onImported={() => {
            refresh();
          }}
        />
      )}
    </div>
  );
}
