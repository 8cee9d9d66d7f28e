import { type Directory, directoriesApi } from '@shared/api/directories';
import { formsApi } from '@shared/api/forms';
import { identityApi, type Role } from '@shared/api/identity';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Col,
  Flex,
  Input,
  Popconfirm,
  Row,
  Select,
  Space,
  Spin,
  Tag,
  Typography,
  theme,
} from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, call } from '../../../api';
import { useMessage } from '../../../messages';
import { failureText, useCall } from '../../../use-api';
import { showUndoable } from '../../common/undo-notice';
import {
  changes,
  type Draft,
  draftFromForm,
  formRequest,
  newDraft,
  newField,
  newStatus,
  type PlacedProblems,
  placeProblems,
  workflowRequest,
} from './draft';
import { FieldsEditor } from './fields-editor';
import { InlineProblems, problemText } from './problem-text';
import { useUnsavedGuard } from './use-unsaved-guard';
import { MovesMatrix, StatusesEditor } from './workflow-editor';

/** `/forms/new` and `/forms/:formId/edit`; a new editor per form, so creating one starts editing it afresh. */
export function FormEditorPage() {
  const { formId } = useParams();
  return <FormEditorLoader key={formId ?? 'new'} formId={formId} />;
}

/** Loads what the editor needs: the form (when editing), the caller's role, directories and roles. */
function FormEditorLoader({ formId }: { formId: string | undefined }) {
  const { t } = useTranslation();
  const form = useCall(formsApi.getForm, formId ? { params: { formId } } : undefined);
  const me = useCall(identityApi.getCurrentUser, {});
  const directories = useCall(directoriesApi.listDirectories, {});
  const roles = useCall(identityApi.listRoles, {});
  const failure = (formId ? form.error : undefined) ?? me.error;
  if (failure) {
    return (
      <div style={{ padding: 16 }}>
        <Link to="/forms">← {t('formEditor.back')}</Link>
        <Alert type="error" title={failure} role="alert" style={{ marginTop: 12 }} />
      </div>
    );
  }
  if ((formId && !form.data) || !me.data) {
    return (
      <Flex justify="center" style={{ padding: 48 }}>
        <Spin description={t('formEditor.loading')} />
      </Flex>
    );
  }
  return (
    <FormEditor
      formId={formId}
      initial={
        form.data
          ? draftFromForm(form.data)
          : newDraft({
              open: t('formEditor.defaultStatuses.open'),
              working: t('formEditor.defaultStatuses.working'),
              done: t('formEditor.defaultStatuses.done'),
            })
      }
      readOnly={!me.data.user.isAdmin}
      directories={directories.data?.items ?? (directories.error ? [] : undefined)}
      roles={roles.data?.items ?? []}
    />
  );
}

interface EditorProps {
  formId: string | undefined;
  initial: Draft;
  readOnly: boolean;
  directories: Directory[] | undefined;
  roles: Role[];
}

function FormEditor({ formId, initial, readOnly, directories, roles }: EditorProps) {
  const { t } = useTranslation();
  const message = useMessage();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const [draft, setDraft] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const [problems, setProblems] = useState<PlacedProblems>();
  const [saving, setSaving] = useState(false);
  const pending = changes(draft, saved);
  const { allowNextLeave } = useUnsavedGuard(pending.any && !readOnly);

  const edit = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));

  const fail = (caught: unknown, sent: Draft, moveKeys: Parameters<typeof placeProblems>[3]) => {
    if (caught instanceof ApiError && caught.problem.status > 0) {
      setProblems(placeProblems(caught.problem.detail, caught.problem.errors ?? [], sent, moveKeys));
    } else {
      setProblems(placeProblems(t('errors.network'), [], sent, moveKeys));
    }
  };

  const save = async () => {
    if (saving || readOnly) return;
    setSaving(true);
    const sent = draft;
    const workflow = workflowRequest(sent);
    try {
      if (!formId) {
        const created = await call(formsApi.createForm, { body: { ...formRequest(sent), ...workflow.body } });
        message.success(t('formEditor.created'));
        allowNextLeave();
        navigate(`/forms/${created.id}/edit`, { replace: true });
        return;
      }
      // One update, all or nothing: settings, fields and (when changed) the workflow.
      const result = await call(formsApi.updateForm, {
        params: { formId },
        body: { ...formRequest(sent), ...(pending.workflow ? workflow.body : {}) },
      });
      const fieldIds = new Map(sent.fields.map((field, index) => [field.key, result.fields[index]?.id]));
      const statusIds = new Map(sent.statuses.map((status, index) => [status.key, result.statuses[index]?.id]));
      const withIds = <T extends { key: string; id?: string }>(items: T[], ids: Map<string, string | undefined>) =>
        items.map((item) => ({ ...item, id: item.id ?? ids.get(item.key) }));
      setDraft((current) => ({
        ...current,
        fields: withIds(current.fields, fieldIds),
        statuses: withIds(current.statuses, statusIds),
      }));
      setSaved({ ...sent, fields: withIds(sent.fields, fieldIds), statuses: withIds(sent.statuses, statusIds) });
      setProblems(undefined);
      message.success(t('formEditor.saved'));
    } catch (caught) {
      fail(caught, sent, workflow.moveKeys);
    } finally {
      setSaving(false);
    }
  };

  /** Deletes the form and goes back to the list, offering for a while to take the deletion back. */
  const remove = async () => {
    if (!formId) return;
    try {
      await call(formsApi.deleteForm, { params: { formId } });
      const name = saved.name;
      showUndoable(message, {
        key: `form-deleted-${formId}`,
        text: t('formEditor.removed'),
        undoLabel: t('formEditor.undoRemove'),
        testId: 'form-deleted',
        undo: async () => {
          try {
            await call(formsApi.restoreForm, { params: { formId } });
            message.success(t('formEditor.restored', { name }));
          } catch (caught) {
            message.error(failureText(caught, t));
          }
        },
      });
      allowNextLeave();
      navigate('/forms');
    } catch (caught) {
      fail(caught, draft, []);
    }
  };

  // Ctrl+S / ⌘S saves, as in desktop editors.
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void saveRef.current();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  const unplaced = [...(problems?.workflow ?? []), ...(problems?.other ?? [])];
  return (
    <div style={{ padding: '0 16px 16px' }}>
      <Flex
        justify="space-between"
        align="center"
        wrap
        gap={8}
        style={{
          position: 'sticky',
          top: 0,
          zIndex: 10,
          padding: '10px 0',
          background: token.colorBgLayout,
        }}
      >
        <Space size={12} align="center" wrap>
          <Link to="/forms">← {t('formEditor.back')}</Link>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {formId ? t('formEditor.editTitle', { name: saved.name }) : t('formEditor.newTitle')}
          </Typography.Title>
          {pending.any && !readOnly && <Tag color="warning">{t('formEditor.unsaved')}</Tag>}
        </Space>
        <Space>
          {formId && !readOnly && (
            <Popconfirm
              title={t('formEditor.removeConfirm')}
              okText={t('formEditor.remove')}
              okButtonProps={{ danger: true }}
              cancelText={t('formEditor.cancel')}
              onConfirm={remove}
            >
              <Button danger disabled={saving}>
                {t('formEditor.remove')}
              </Button>
            </Popconfirm>
          )}
          <Button
            disabled={!pending.any || saving || readOnly}
            onClick={() => {
              setDraft(saved);
              setProblems(undefined);
            }}
          >
            {t('formEditor.discard')}
          </Button>
          <Button
            type="primary"
            loading={saving}
            disabled={readOnly || (formId !== undefined && !pending.any)}
            onClick={() => void save()}
          >
            {t('formEditor.save')}
          </Button>
        </Space>
      </Flex>
      {readOnly && <Alert type="info" title={t('formEditor.notAdmin')} style={{ marginBottom: 12 }} />}
      {problems && (
        <Alert
          type="error"
          role="alert"
          data-testid="save-problem"
          title={problems.detail}
          description={
            unplaced.length > 0 ? (
              <ul style={{ margin: 0, paddingLeft: 18 }}>
                {unplaced.map((error) => (
                  <li key={error.pointer + error.code}>
                    {problemText(t, error)} <Typography.Text type="secondary">({error.detail})</Typography.Text>
                  </li>
                ))}
              </ul>
            ) : undefined
          }
          closable={{ onClose: () => setProblems(undefined) }}
          style={{ marginBottom: 12 }}
        />
      )}
      <Card size="small" title={t('formEditor.settings')} style={{ marginBottom: 12 }}>
        <Flex wrap gap={16} align="flex-start">
          <div style={{ width: 360 }}>
            <Typography.Text type="secondary">{t('formEditor.name')}</Typography.Text>
            <Input
              aria-label={t('formEditor.name')}
              placeholder={t('formEditor.namePlaceholder')}
              value={draft.name}
              maxLength={200}
              disabled={readOnly}
              status={problems?.formName ? 'error' : undefined}
              onChange={(event) => edit({ name: event.target.value })}
            />
            <InlineProblems errors={[problems?.formName]} />
          </div>
          <div style={{ width: 360 }}>
            <Typography.Text type="secondary">{t('formEditor.visibleRoles')}</Typography.Text>
            <Select
              mode="multiple"
              aria-label={t('formEditor.visibleRoles')}
              placeholder={t('formEditor.everyone')}
              value={draft.visibleRoleIds}
              disabled={readOnly}
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              onChange={(visibleRoleIds: string[]) => edit({ visibleRoleIds })}
              options={roles.map((role) => ({ value: role.id, label: role.name }))}
              style={{ width: '100%' }}
            />
          </div>
          <Checkbox
            style={{ marginTop: 24 }}
            checked={draft.qr_generation_enabled}
            disabled={readOnly}
            onChange={(event) => edit({ qr_generation_enabled: event.target.checked })}
          >
            {t('formEditor.qr')}
          </Checkbox>
        </Flex>
      </Card>
      <Card
        size="small"
        title={t('formEditor.fields')}
        style={{ marginBottom: 12 }}
        extra={
          <Button size="small" disabled={readOnly} onClick={() => edit({ fields: [...draft.fields, newField()] })}>
            + {t('formEditor.addField')}
          </Button>
        }
      >
        <FieldsEditor
          fields={draft.fields}
          onChange={(fields) => edit({ fields })}
          directories={directories}
          problems={problems?.fields ?? {}}
          readOnly={readOnly}
        />
      </Card>
      <Row gutter={[12, 12]}>
        <Col xs={24} xl={10}>
          <Card
            size="small"
            title={t('formEditor.statuses')}
            extra={
              <Button
                size="small"
                disabled={readOnly}
                onClick={() => edit({ statuses: [...draft.statuses, newStatus()] })}
              >
                + {t('formEditor.addStatus')}
              </Button>
            }
          >
            <StatusesEditor
              statuses={draft.statuses}
              onChange={(statuses) => {
                // Moves of a removed status go with it.
                const keys = new Set(statuses.map((status) => status.key));
                edit({ statuses, moves: draft.moves.filter((move) => keys.has(move.from) && keys.has(move.to)) });
              }}
              problems={problems?.statuses ?? {}}
              readOnly={readOnly}
            />
          </Card>
        </Col>
        <Col xs={24} xl={14}>
          <Card size="small" title={t('formEditor.moves')}>
            <MovesMatrix
              statuses={draft.statuses}
              moves={draft.moves}
              onChange={(moves) => edit({ moves })}
              problems={problems?.moves ?? {}}
              readOnly={readOnly}
            />
          </Card>
        </Col>
      </Row>
    </div>
  );
}
