import { type ProfileField, profileApi, type UserProfileValues } from '@shared/api/profile';
import { Alert, Form as AntForm, Button, Card, Checkbox, DatePicker, Empty, Input, Select, Spin } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call } from '../../api';
import { useMessage } from '../../messages';
import { problemWords } from '../../problem-words';
import { changedValues, datePattern, type FormValue, toFormValue } from './field-values';

/**
 * The editor of a profile value by its field's type. Form.Item hands `value`/`checked` and
 * `onChange` to this component, which passes them on to the control.
 */
function ProfileValueInput({
  field,
  disabled,
  ...control
}: { field: ProfileField; disabled: boolean } & Record<string, unknown>) {
  const { i18n } = useTranslation();
  const common = { ...control, disabled, 'aria-label': field.name };
  switch (field.type) {
    case 'number':
    case 'history-number':
      return <Input {...common} inputMode="decimal" style={{ maxWidth: 240 }} />;
    case 'date':
      return <DatePicker {...common} format={datePattern(i18n.language)} />;
    case 'checkbox':
      return <Checkbox {...common} />;
    case 'select':
      return (
        <Select
          {...common}
          allowClear
          style={{ maxWidth: 320 }}
          options={(field.options ?? []).map((option) => ({ value: option, label: option }))}
        />
      );
    default:
      return <Input {...common} />;
  }
}

/**
 * A user's profile values with editors by type. Only changed values are sent; the server's
 * per-field errors are shown at their fields.
 */
export function ValuesCard({
  userId,
  fields,
  values,
  loading,
  error,
  editable,
  isAdmin,
  onSaved,
}: {
  userId: string;
  fields: readonly ProfileField[] | undefined;
  values: UserProfileValues | undefined;
  loading: boolean;
  error: string | undefined;
  editable: boolean;
  isAdmin: boolean;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = AntForm.useForm<Record<string, FormValue>>();
  const [saveError, setSaveError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const loaded = values?.values;

  useEffect(() => {
    if (!fields || !loaded) return;
    form.setFieldsValue(Object.fromEntries(fields.map((field) => [field.id, toFormValue(field, loaded[field.id])])));
  }, [form, fields, loaded]);

  const save = async (edited: Record<string, FormValue>) => {
    // While values load (another user's may still be on screen) there is nothing safe to compare with.
    if (!fields || !loaded || loading) return;
    const changes = changedValues(fields, loaded, edited);
    if (Object.keys(changes).length === 0) {
      message.info(t('profile.values.unchanged'));
      return;
    }
    setBusy(true);
    try {
      await call(profileApi.setUserFieldValues, { params: { userId }, body: changes });
      setSaveError(undefined);
      message.success(t('profile.values.saved'));
      onSaved();
    } catch (caught) {
      if (!(caught instanceof ApiError) || caught.problem.status === 0) {
        setSaveError(t('errors.network'));
        return;
      }
      setSaveError(`${t('profile.values.failed')}: ${problemWords(t, caught.problem)}`);
      // Errors point at `#/<fieldId>` of the body: shown under that field.
      form.setFields(
        (caught.problem.errors ?? []).map((fieldError) => ({
          name: fieldError.pointer.replace(/^#\//, ''),
          errors: [fieldError.detail],
        })),
      );
    } finally {
      setBusy(false);
    }
  };

  let content: React.ReactNode;
  if (error) content = <Alert type="error" role="alert" title={`${t('profile.errors.load')}: ${error}`} />;
  else if (!fields || !loaded) content = <Spin description={t('profile.loading')} />;
  else if (fields.length === 0) {
    content = (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t(isAdmin ? 'profile.values.emptyAdmin' : 'profile.values.empty')}
      />
    );
  } else {
    content = (
      <>
        {!editable && <Alert type="info" title={t('profile.values.readOnly')} style={{ marginBottom: 12 }} showIcon />}
        {saveError && <Alert type="error" role="alert" title={saveError} style={{ marginBottom: 12 }} />}
        <AntForm
          form={form}
          layout="horizontal"
          labelCol={{ flex: '200px' }}
          labelWrap
          onFinish={save}
          size="small"
          data-testid="profile-values"
        >
          {fields.map((field) => (
            <AntForm.Item
              key={field.id}
              name={field.id}
              label={field.name}
              valuePropName={field.type === 'checkbox' ? 'checked' : 'value'}
              extra={field.type === 'history-number' ? t('profile.values.historyHint') : undefined}
              style={{ marginBottom: 10 }}
            >
              <ProfileValueInput field={field} disabled={!editable} />
            </AntForm.Item>
          ))}
          {editable && (
            <Button type="primary" htmlType="submit" loading={busy} disabled={loading && !busy}>
              {t('profile.values.save')}
            </Button>
          )}
        </AntForm>
      </>
    );
  }
  return (
    <Card size="small" title={t('profile.values.title')}>
      {content}
    </Card>
  );
}
