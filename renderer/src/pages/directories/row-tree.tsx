import { Tag, Tree, type TreeDataNode, type TreeProps, Typography } from 'antd';
import { type DragEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SyncMarks } from '../common/sync-marks';
import { cellText, type Directory, placeNodes, type Row, type TreeNodeShape } from './data';

/** Trees above this many nodes are drawn virtually: only the visible part is in the page. */
const VIRTUAL_FROM = 300;

interface RowTreeProps {
  nodes: TreeNodeShape[];
  rows: ReadonlyMap<string, Row>;
  columns: Directory['columns'];
  displayColumnIndex: number;
  /** Whether rows may be dragged: only in the parent-link tree, with nothing filtered out. */
  canDrag: boolean;
  /** Nodes shown only as the way to a match of a filter. */
  context: ReadonlySet<string>;
  selectedRowId: string | undefined;
  onSelect: (rowId: string) => void;
  /** Re-parents a row: `position` counts among the new siblings without the row itself. */
  onMove: (rowId: string, parentId: string | null, position: number) => void;
  /** Labels of the parent directory's rows a sub-directory row is offered under. */
  parentRowLabel?: (rowId: string) => string;
  /** A drag began (true) or ended (false): a tree rebuilt meanwhile would lose it. */
  onDragging?: (dragging: boolean) => void;
}

interface Node extends TreeDataNode {
  key: string;
  shape: TreeNodeShape;
  children: Node[];
}

function toNodes(shapes: readonly TreeNodeShape[]): Node[] {
  return shapes.map((shape) => ({ key: shape.id, title: shape.label, shape, children: toNodes(shape.children) }));
}

function withChildren(shapes: readonly TreeNodeShape[], into: string[] = []): string[] {
  for (const shape of shapes) {
    if (shape.children.length > 0) into.push(shape.id);
    withChildren(shape.children, into);
  }
  return into;
}

/**
 * The rows as a tree. Dropping onto a row makes it the parent; dropping between rows places the
 * row among those siblings; the zone under the tree moves it to the top level.
 */
export function RowTree(props: RowTreeProps) {
  const { t } = useTranslation();
  const { nodes, rows, columns, displayColumnIndex, canDrag, context, onMove } = props;
  const places = useMemo(() => placeNodes(nodes), [nodes]);
  const treeData = useMemo(() => toNodes(nodes), [nodes]);
  const [expanded, setExpanded] = useState<string[]>(() => withChildren(nodes));
  const seen = useRef(new Set(withChildren(nodes)));
  const dragging = useRef<string | null>(null);
  const [overRoot, setOverRoot] = useState(false);

  // Parents that appear after a load (a move, an import) open, the ones the user closed stay closed.
  useEffect(() => {
    const fresh = withChildren(nodes).filter((key) => !seen.current.has(key));
    if (fresh.length === 0) return;
    for (const key of fresh) seen.current.add(key);
    setExpanded((current) => [...current, ...fresh]);
  }, [nodes]);

  const childrenOf = (parentKey: string | null) =>
    parentKey === null ? nodes : (places.get(parentKey)?.node.children ?? []);

  const onDrop: TreeProps<Node>['onDrop'] = (info) => {
    const rowId = String(info.dragNode.key);
    const targetId = String(info.node.key);
    dragging.current = null;
    if (!info.dropToGap) return onMove(rowId, targetId, 0);
    const parentKey = places.get(targetId)?.parentKey ?? null;
    const siblings = childrenOf(parentKey)
      .map((node) => node.id)
      .filter((id) => id !== rowId);
    const at = siblings.indexOf(targetId);
    const targetIndex = Number(info.node.pos.split('-').at(-1));
    // `dropPosition` is relative to the target's index: -1 before it, +1 after it.
    const before = info.dropPosition - targetIndex < 0;
    onMove(rowId, parentKey, before ? at : at + 1);
  };

  const dropOnRoot = (event: DragEvent) => {
    event.preventDefault();
    setOverRoot(false);
    const rowId = dragging.current;
    dragging.current = null;
    if (!rowId) return;
    onMove(rowId, null, nodes.filter((node) => node.id !== rowId).length);
  };

  const cellSummary = (row: Row) =>
    columns
      .map((column, index) => {
        if (index === displayColumnIndex) return '';
        const cell = row.cells[index] ?? null;
        if (cell === null || cell === '') return '';
        const text = column.type === 'checkbox' ? (cell ? t('directories.yes') : t('directories.no')) : cellText(cell);
        return `${column.name}: ${text}`;
      })
      .filter(Boolean)
      .join(' · ');

  const title = (node: Node) => {
    const { shape } = node;
    const depth = places.get(shape.id)?.depth ?? 1;
    if (shape.kind === 'column_value') {
      return (
        <span data-testid="group-node" data-depth={depth} data-label={shape.label}>
          <Typography.Text strong>{shape.value === null ? t('directories.noValue') : shape.label}</Typography.Text>{' '}
          <Tag>{shape.children.length}</Tag>
        </span>
      );
    }
    const row = rows.get(shape.id);
    const parentId = places.get(shape.id)?.parentKey ?? '';
    const bound = row && props.parentRowLabel ? row.parentRowIds.map(props.parentRowLabel).join(', ') : '';
    return (
      <span
        data-testid="row-node"
        data-depth={depth}
        data-label={shape.label}
        data-row-id={shape.id}
        data-parent-id={parentId}
        style={{ opacity: context.has(shape.id) ? 0.5 : 1 }}
      >
        {shape.label ? shape.label : <Typography.Text type="secondary">{t('directories.noLabel')}</Typography.Text>}
        <SyncMarks id={shape.id} />
        {row && (
          <Typography.Text type="secondary" style={{ marginLeft: 12, fontSize: 12 }}>
            {cellSummary(row)}
          </Typography.Text>
        )}
        {bound && (
          <Typography.Text type="secondary" style={{ marginLeft: 12, fontSize: 12 }}>
            ↳ {bound}
          </Typography.Text>
        )}
      </span>
    );
  };

  return (
    <div>
      <Tree<Node>
        aria-label={t('directories.tree')}
        blockNode
        showLine
        treeData={treeData}
        height={places.size > VIRTUAL_FROM ? 640 : undefined}
        expandedKeys={expanded}
        onExpand={(keys) => setExpanded(keys.map(String))}
        selectedKeys={props.selectedRowId ? [props.selectedRowId] : []}
        onSelect={(_, info) => {
          if (info.node.shape.kind === 'row') props.onSelect(info.node.shape.id);
        }}
        draggable={canDrag ? { icon: false } : false}
        onDragStart={(info) => {
          dragging.current = String(info.node.key);
          props.onDragging?.(true);
        }}
        onDragEnd={() => {
          dragging.current = null;
          props.onDragging?.(false);
          setOverRoot(false);
        }}
        onDrop={onDrop}
        titleRender={title}
      />
      {canDrag && (
        // biome-ignore lint/a11y/noStaticElementInteractions: a drop target for mouse dragging; the row panel's "Move under" does the same by keyboard.
        <div
          data-testid="root-drop-zone"
          data-over={overRoot || undefined}
          onDragOver={(event) => {
            if (!dragging.current) return;
            event.preventDefault();
            setOverRoot(true);
          }}
          onDragLeave={() => setOverRoot(false)}
          onDrop={dropOnRoot}
          style={{
            marginTop: 8,
            padding: '6px 12px',
            border: `1px dashed ${overRoot ? '#1677ff' : '#d9d9d9'}`,
            borderRadius: 6,
            color: overRoot ? '#1677ff' : '#8c8c8c',
            fontSize: 12,
          }}
        >
          {t('directories.dropToRoot')}
        </div>
      )}
    </div>
  );
}
