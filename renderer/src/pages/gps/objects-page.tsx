import {
  type FilterSettings,
  type GpsObject,
  gpsGroupsApi,
  gpsObjectsApi,
  gpsSettingsApi,
  type PartialFilterSettings,
} from '@shared/api/gps';
import type { ProblemFieldError } from '@shared/api/problem';
import {
  Alert,
  Button,
  Card,
  Form,
  type FormInstance,
  Input,
  InputNumber,
  Modal,
  Radio,
  Select,
  Space,
  Spin,
  Table,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError, call } from '../../api';
import { useReplica } from '../../data/replica-context';
import { useMessage } from '../../messages';
import { numberBounds } from '../settings/gps-settings-model';
import { formatDateTime, LoadFailed, problemText, useLoad } from '../settings/load';
import {
  FILTER_FIELDS,
  formFieldOfPointer,
  type GroupSettings,
  inheritedValue,
  type ObjectValues,
  type OverrideValues,
  objectChange,
  objectCounts,
  objectMatches,
  overrideValues,
  refusalWords,
  settingsOfValues,
} from './objects-model';

type Group = GroupSettings & { createdAt: string; updatedAt: string };
type Kind = GpsObject['kind'];
const KINDS: readonly Kind[] = ['vehicle', 'person', 'tracker'];
/** The group select's value for "no group" (a select's options cannot hold null). */
const NO_GROUP = '';

/** Whose filters the overrides dialog edits. */
type FiltersTarget = { kind: 'object'; object: GpsObject } | { kind: 'group'; group: Group };
/** What is being deleted, awaiting its confirmation. */
type Deleting = { kind: 'object'; object: GpsObject } | { kind: 'group'; group: Group; objects: number };

interface Loaded {
  objects: GpsObject[];
  groups: Group[];
  organization: FilterSettings;
}

/** The server's refusals, each under the form field it points at; whether there were any. */
function showRefusals(form: FormInstance, caught: unknown, t: ReturnType<typeof useTranslation>['t']): boolean {
  const errors: ProblemFieldError[] = caught instanceof ApiError ? (caught.problem.errors ?? []) : [];
  const fields = errors
    .filter((error) => error.location === 'body')
    .map((error) => ({ name: formFieldOfPointer(error.pointer), errors: [refusalWords(error, t)] }));
  form.setFields(fields);
  return fields.length > 0;
}

/** Whether the call was refused because what it names is gone (a colleague deleted it). */
function isGone(caught: unknown): boolean {
  return caught instanceof ApiError && caught.problem.status === 404;
}

/** GPS → Objects and groups: for everyone with the GPS module (the API lets them all manage objects and groups). */
export function GpsObjectsPage() {
  const { t } = useTranslation();
  const { me } = useReplica();
  if (!me) return null;
  if (!me.modules.gps) return <Alert style={{ margin: 24 }} type="info" title={t('gpsObjects.noAccess')} />;
  return <ObjectsScreen />;
}

function ObjectsScreen() {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const loaded = useLoad<Loaded>('gps-objects', async () => {
    const [objects, groups, organization] = await Promise.all([
      call(gpsObjectsApi.listGpsObjects),
      call(gpsGroupsApi.list),
      call(gpsSettingsApi.getGpsSettings),
    ]);
    return {
      objects: [...objects.items].sort((a, b) => a.name.localeCompare(b.name)),
      groups: [...groups.items].sort((a, b) => a.name.localeCompare(b.name)),
      organization,
    };
  });
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<GpsObject | 'new'>();
  const [naming, setNaming] = useState<Group | 'new'>();
  const [filters, setFilters] = useState<FiltersTarget>();
  const [deleting, setDeleting] = useState<Deleting>();

  const data = loaded.data;
  const groupsById = useMemo(() => new Map((data?.groups ?? []).map((group) => [group.id, group])), [data]);
  const counts = useMemo(() => objectCounts(data?.objects ?? []), [data]);
  const shown = useMemo(
    () =>
      (data?.objects ?? []).filter((object) =>
        objectMatches(object, object.groupId ? groupsById.get(object.groupId)?.name : undefined, search),
      ),
    [data, groupsById, search],
  );

  /** A save or deletion found its object or group gone: said, and the list comes again. */
  const gone = () => {
    message.warning(t('gpsObjects.gone'));
    loaded.reload();
  };

  if (loaded.error && !data) {
    return (
      <Page>
        <LoadFailed error={loaded.error} onRetry={loaded.reload} />
      </Page>
    );
  }
  if (!data) {
    return (
      <Page>
        <Spin description={t('gpsObjects.loading')} />
      </Page>
    );
  }

  const ownCount = (settings: PartialFilterSettings) => {
    const count = Object.keys(settings).length;
    return count === 0 ? t('gpsObjects.noOwn') : t('gpsObjects.ownCount', { count, total: FILTER_FIELDS.length });
  };

  return (
    <Page>
      <Card
        size="small"
        title={t('gpsObjects.groups')}
        style={{ marginBottom: 12 }}
        extra={
          <Button type="primary" onClick={() => setNaming('new')}>
            {t('gpsObjects.newGroup')}
          </Button>
        }
        data-testid="gps-groups"
      >
        <Table<Group>
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={data.groups}
          locale={{ emptyText: t('gpsObjects.noGroups') }}
          columns={[
            { title: t('gpsObjects.name'), dataIndex: 'name' },
            { title: t('gpsObjects.objectCount'), key: 'objects', render: (_, group) => counts.get(group.id) ?? 0 },
            { title: t('gpsObjects.ownValues'), key: 'own', render: (_, group) => ownCount(group.settings) },
            {
              title: t('gpsObjects.actions'),
              key: 'actions',
              render: (_, group) => (
                <Space size="small">
                  <Button size="small" onClick={() => setNaming(group)}>
                    {t('gpsObjects.rename')}
                  </Button>
                  <Button size="small" onClick={() => setFilters({ kind: 'group', group })}>
                    {t('gpsObjects.filters')}
                  </Button>
                  <Button
                    size="small"
                    danger
                    onClick={() => setDeleting({ kind: 'group', group, objects: counts.get(group.id) ?? 0 })}
                  >
                    {t('gpsObjects.delete')}
                  </Button>
                </Space>
              ),
            },
          ]}
        />
      </Card>

      <Card
        size="small"
        title={t('gpsObjects.objects')}
        extra={
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('gpsObjects.newObject')}
          </Button>
        }
        data-testid="gps-objects"
      >
        <Input
          allowClear
          placeholder={t('gpsObjects.search')}
          aria-label={t('gpsObjects.search')}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          style={{ maxWidth: 360, marginBottom: 8 }}
        />
        <Table<GpsObject>
          size="small"
          rowKey="id"
          pagination={{ pageSize: 50, hideOnSinglePage: true }}
          dataSource={shown}
          locale={{ emptyText: data.objects.length === 0 ? t('gpsObjects.noObjects') : t('gpsObjects.noMatch') }}
          columns={[
            { title: t('gpsObjects.name'), dataIndex: 'name' },
            { title: t('gpsObjects.kind'), dataIndex: 'kind', render: (kind: Kind) => t(`gpsObjects.kinds.${kind}`) },
            { title: t('gpsObjects.trackerId'), dataIndex: 'trackerId' },
            {
              title: t('gpsObjects.group'),
              dataIndex: 'groupId',
              render: (groupId: string | null) =>
                (groupId && groupsById.get(groupId)?.name) || (
                  <Typography.Text type="secondary">{t('gpsObjects.noGroup')}</Typography.Text>
                ),
            },
            {
              title: t('gpsObjects.lastSeen'),
              dataIndex: 'last_seen',
              render: (lastSeen: string | null) =>
                lastSeen ? formatDateTime(lastSeen, i18n.language) : t('gpsObjects.never'),
            },
            { title: t('gpsObjects.ownValues'), key: 'own', render: (_, object) => ownCount(object.settings) },
            {
              title: t('gpsObjects.actions'),
              key: 'actions',
              render: (_, object) => (
                <Space size="small">
                  <Button size="small" onClick={() => setEditing(object)}>
                    {t('gpsObjects.edit')}
                  </Button>
                  <Button size="small" onClick={() => setFilters({ kind: 'object', object })}>
                    {t('gpsObjects.filters')}
                  </Button>
                  <Button size="small" danger onClick={() => setDeleting({ kind: 'object', object })}>
                    {t('gpsObjects.delete')}
                  </Button>
                </Space>
              ),
            },
          ]}
        />
      </Card>

      {editing && (
        <ObjectDialog
          object={editing === 'new' ? undefined : editing}
          groups={data.groups}
          onDone={(saved) => {
            setEditing(undefined);
            message.success(t(editing === 'new' ? 'gpsObjects.objectCreated' : 'gpsObjects.objectSaved', saved));
            loaded.reload();
          }}
          onGone={() => {
            setEditing(undefined);
            gone();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      {naming && (
        <GroupDialog
          group={naming === 'new' ? undefined : naming}
          onDone={(saved) => {
            setNaming(undefined);
            message.success(t(naming === 'new' ? 'gpsObjects.groupCreated' : 'gpsObjects.groupSaved', saved));
            loaded.reload();
          }}
          onGone={() => {
            setNaming(undefined);
            gone();
          }}
          onCancel={() => setNaming(undefined)}
        />
      )}
      {filters && (
        <FiltersDialog
          target={filters}
          organization={data.organization}
          group={
            filters.kind === 'object' && filters.object.groupId ? groupsById.get(filters.object.groupId) : undefined
          }
          onDone={() => {
            setFilters(undefined);
            message.success(t('gpsObjects.filtersSaved'));
            loaded.reload();
          }}
          onGone={() => {
            setFilters(undefined);
            gone();
          }}
          onCancel={() => setFilters(undefined)}
        />
      )}
      {deleting && (
        <DeleteDialog
          deleting={deleting}
          onDone={() => {
            setDeleting(undefined);
            const name = deleting.kind === 'object' ? deleting.object.name : deleting.group.name;
            message.success(
              t(deleting.kind === 'object' ? 'gpsObjects.objectDeleted' : 'gpsObjects.groupDeleted', { name }),
            );
            loaded.reload();
          }}
          onGone={() => {
            setDeleting(undefined);
            gone();
          }}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </Page>
  );
}

/** The screen's frame: its title, a way back to the map and what objects and groups are. */
function Page({ children }: { children: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <div style={{ padding: '12px 24px', maxWidth: 1200 }} data-testid="gps-objects-page">
      <Space align="baseline" style={{ width: '100%', justifyContent: 'space-between' }}>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          {t('gpsObjects.title')}
        </Typography.Title>
        <Link to="/map">{t('gpsObjects.toMap')}</Link>
      </Space>
      <Typography.Paragraph type="secondary">{t('gpsObjects.intro')}</Typography.Paragraph>
      {children}
    </div>
  );
}

/**
 * Runs a save: a refusal goes under the fields it names (with "correct the marked fields" above),
 * a vanished object or group to `onGone`, anything else above the form in the server's words.
 */
function useSave(form: FormInstance, onGone: () => void) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (save: () => Promise<void>) => {
    setBusy(true);
    try {
      await save();
      setError(undefined);
    } catch (caught) {
      if (isGone(caught)) onGone();
      else setError(showRefusals(form, caught, t) ? t('gpsObjects.fixFields') : problemText(caught, t));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

function SaveError({ error }: { error: string | undefined }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert
      type="error"
      role="alert"
      title={t('gpsObjects.saveFailed')}
      description={error}
      style={{ marginBottom: 12 }}
    />
  );
}

/** A new object for a tracker, or an object's name, kind, tracker and group. */
function ObjectDialog({
  object,
  groups,
  onDone,
  onGone,
  onCancel,
}: {
  object: GpsObject | undefined;
  groups: Group[];
  onDone: (saved: { name: string }) => void;
  onGone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ObjectValues>();
  const save = useSave(form, onGone);
  const submit = (raw: ObjectValues) => {
    const values = { ...raw, groupId: raw.groupId === NO_GROUP ? null : raw.groupId };
    void save.run(async () => {
      if (!object) {
        const made = await call(gpsObjectsApi.createGpsObject, {
          body: { ...values, name: values.name.trim(), trackerId: values.trackerId.trim() },
        });
        onDone(made);
        return;
      }
      const change = objectChange(object, values);
      if (Object.keys(change).length === 0) return onDone(object);
      onDone(await call(gpsObjectsApi.updateGpsObject, { params: { objectId: object.id }, body: change }));
    });
  };
  return (
    <Modal
      open
      title={object ? t('gpsObjects.editObject', { name: object.name }) : t('gpsObjects.newObject')}
      okText={object ? t('gpsObjects.save') : t('gpsObjects.create')}
      cancelText={t('gpsObjects.cancel')}
      confirmLoading={save.busy}
      onOk={() => form.submit()}
      onCancel={onCancel}
      destroyOnHidden
    >
      <SaveError error={save.error} />
      <Form<ObjectValues>
        form={form}
        layout="vertical"
        initialValues={{
          name: object?.name ?? '',
          kind: object?.kind ?? 'vehicle',
          trackerId: object?.trackerId ?? '',
          groupId: object?.groupId ?? NO_GROUP,
        }}
        onFinish={submit}
        data-testid="gps-object-form"
      >
        <Form.Item
          name="name"
          label={t('gpsObjects.name')}
          rules={[{ required: true, whitespace: true, message: t('gpsObjects.required.name') }]}
        >
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item name="kind" label={t('gpsObjects.kind')}>
          <Select options={KINDS.map((kind) => ({ value: kind, label: t(`gpsObjects.kinds.${kind}`) }))} />
        </Form.Item>
        <Form.Item
          name="trackerId"
          label={t('gpsObjects.trackerId')}
          extra={t('gpsObjects.trackerHint')}
          rules={[{ required: true, whitespace: true, message: t('gpsObjects.required.trackerId') }]}
        >
          <Input maxLength={128} />
        </Form.Item>
        <Form.Item name="groupId" label={t('gpsObjects.group')}>
          <Select
            options={[
              { value: NO_GROUP, label: t('gpsObjects.noGroup') },
              ...groups.map((group) => ({ value: group.id, label: group.name })),
            ]}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** A new group, or a group's new name. */
function GroupDialog({
  group,
  onDone,
  onGone,
  onCancel,
}: {
  group: Group | undefined;
  onDone: (saved: { name: string }) => void;
  onGone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ name: string }>();
  const save = useSave(form, onGone);
  const submit = ({ name }: { name: string }) =>
    void save.run(async () => {
      const body = { name: name.trim() };
      onDone(
        group
          ? await call(gpsGroupsApi.update, { params: { groupId: group.id }, body })
          : await call(gpsGroupsApi.create, { body }),
      );
    });
  return (
    <Modal
      open
      title={group ? t('gpsObjects.renameGroup', { name: group.name }) : t('gpsObjects.newGroup')}
      okText={group ? t('gpsObjects.save') : t('gpsObjects.create')}
      cancelText={t('gpsObjects.cancel')}
      confirmLoading={save.busy}
      onOk={() => form.submit()}
      onCancel={onCancel}
      destroyOnHidden
    >
      <SaveError error={save.error} />
      <Form form={form} layout="vertical" initialValues={{ name: group?.name ?? '' }} onFinish={submit}>
        <Form.Item
          name="name"
          label={t('gpsObjects.name')}
          rules={[{ required: true, whitespace: true, message: t('gpsObjects.required.name') }]}
        >
          <Input maxLength={200} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Each filter value of a group or an object: inherited (with its value and source shown) or its own. */
function FiltersDialog({
  target,
  organization,
  group,
  onDone,
  onGone,
  onCancel,
}: {
  target: FiltersTarget;
  organization: FilterSettings;
  /** The object's group, whose own values the object inherits before the organization's. */
  group: Group | undefined;
  onDone: () => void;
  onGone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<OverrideValues>();
  const save = useSave(form, onGone);
  const settings = target.kind === 'object' ? target.object.settings : target.group.settings;
  const submit = (values: OverrideValues) =>
    void save.run(async () => {
      // Values go as typed: the server's schema judges them, and its refusals come back to their fields.
      const body = { settings: settingsOfValues(values) as PartialFilterSettings };
      if (target.kind === 'object') {
        await call(gpsObjectsApi.updateGpsObject, { params: { objectId: target.object.id }, body });
      } else {
        await call(gpsGroupsApi.update, { params: { groupId: target.group.id }, body });
      }
      onDone();
    });
  const title =
    target.kind === 'object'
      ? t('gpsObjects.filtersOfObject', { name: target.object.name })
      : t('gpsObjects.filtersOfGroup', { name: target.group.name });
  return (
    <Modal
      open
      width={720}
      title={title}
      okText={t('gpsObjects.save')}
      cancelText={t('gpsObjects.cancel')}
      confirmLoading={save.busy}
      onOk={() => form.submit()}
      onCancel={onCancel}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('gpsObjects.filtersIntro')}</Typography.Paragraph>
      <SaveError error={save.error} />
      <Form<OverrideValues>
        form={form}
        layout="vertical"
        initialValues={overrideValues(settings, organization, group)}
        onFinish={submit}
        data-testid="gps-filters-form"
      >
        {FILTER_FIELDS.map(([field, unit]) => (
          <OverrideField key={field} field={field} unit={unit} organization={organization} group={group} />
        ))}
      </Form>
    </Modal>
  );
}

function OverrideField({
  field,
  unit,
  organization,
  group,
}: {
  field: (typeof FILTER_FIELDS)[number][0];
  unit: (typeof FILTER_FIELDS)[number][1];
  organization: FilterSettings;
  group: Group | undefined;
}) {
  const { t } = useTranslation();
  const label = t(`gpsSettings.fields.${field}`);
  const bounds = numberBounds(field);
  const inherited = inheritedValue(field, organization, group);
  const from =
    inherited.from.source === 'group'
      ? t('gpsObjects.fromGroup', { name: inherited.from.groupName })
      : t('gpsObjects.fromOrganization');
  return (
    <div data-testid={`override-${field}`} style={{ marginBottom: 12 }}>
      <Typography.Text strong>{label}</Typography.Text>
      <div style={{ display: 'flex', gap: 12, alignItems: 'flex-start', marginTop: 4 }}>
        <Form.Item name={[field, 'own']} noStyle>
          <Radio.Group
            optionType="button"
            size="small"
            aria-label={`${label}: ${t('gpsObjects.inherit')} / ${t('gpsObjects.own')}`}
            options={[
              { value: false, label: t('gpsObjects.inherit') },
              { value: true, label: t('gpsObjects.own') },
            ]}
          />
        </Form.Item>
        <Form.Item noStyle shouldUpdate={(before, after) => before[field]?.own !== after[field]?.own}>
          {({ getFieldValue }) =>
            getFieldValue([field, 'own']) ? (
              <Form.Item
                name={[field, 'value']}
                style={{ marginBottom: 0, flex: 1 }}
                rules={[{ required: true, message: t('gpsObjects.required.value') }]}
              >
                <InputNumber
                  aria-label={label}
                  min={bounds.min}
                  max={bounds.max}
                  precision={bounds.integer ? 0 : undefined}
                  suffix={t(`gpsSettings.units.${unit}`)}
                  style={{ width: 220 }}
                />
              </Form.Item>
            ) : (
              <Typography.Text type="secondary" data-testid={`inherited-${field}`}>
                {t('gpsObjects.inherited', { value: inherited.value, unit: t(`gpsSettings.units.${unit}`), from })}
              </Typography.Text>
            )
          }
        </Form.Item>
      </div>
    </div>
  );
}

/** The deletion's confirmation, saying what goes with it: an object's track; a group's objects stay ungrouped. */
function DeleteDialog({
  deleting,
  onDone,
  onGone,
  onCancel,
}: {
  deleting: Deleting;
  onDone: () => void;
  onGone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const remove = async () => {
    setBusy(true);
    try {
      if (deleting.kind === 'object') {
        await call(gpsObjectsApi.deleteGpsObject, { params: { objectId: deleting.object.id } });
      } else {
        await call(gpsGroupsApi.remove, { params: { groupId: deleting.group.id } });
      }
      onDone();
    } catch (caught) {
      if (isGone(caught)) onGone();
      else setError(problemText(caught, t));
    } finally {
      setBusy(false);
    }
  };
  const [title, text] =
    deleting.kind === 'object'
      ? [t('gpsObjects.deleteObjectTitle', { name: deleting.object.name }), t('gpsObjects.deleteObjectText')]
      : [
          t('gpsObjects.deleteGroupTitle', { name: deleting.group.name }),
          deleting.objects === 0
            ? t('gpsObjects.deleteGroupEmpty')
            : t('gpsObjects.deleteGroupText', { count: deleting.objects }),
        ];
  return (
    <Modal
      open
      title={title}
      okText={t('gpsObjects.delete')}
      okButtonProps={{ danger: true }}
      cancelText={t('gpsObjects.cancel')}
      confirmLoading={busy}
      onOk={() => void remove()}
      onCancel={onCancel}
    >
      {error && (
        <Alert
          type="error"
          role="alert"
          title={t('gpsObjects.deleteFailed')}
          description={error}
          style={{ marginBottom: 12 }}
        />
      )}
      <Typography.Paragraph data-testid="gps-delete-consequence">{text}</Typography.Paragraph>
    </Modal>
  );
}
