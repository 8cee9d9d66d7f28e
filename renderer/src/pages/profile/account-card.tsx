import { identityApi, type User } from '@shared/api/identity';
import { Alert, Button, Card, Descriptions, Form, Input, Segmented, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { LANGUAGES, type Language, setLanguage } from '../../i18n';
import { useMessage } from '../../messages';
import { failureText } from '../../use-api';

/** Name (editable by the user and administrators), e-mail, rights and, on one's own profile, the interface language. */
export function AccountCard({
  user,
  own,
  editable,
  onChanged,
}: {
  user: User;
  own: boolean;
  editable: boolean;
  onChanged: () => void;
}) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<{ name: string }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const describe = (caught: unknown) => failureText(caught, t);

  useEffect(() => {
    form.setFieldsValue({ name: user.name });
  }, [form, user.name]);

  const rename = async ({ name }: { name: string }) => {
    setBusy(true);
    try {
      await call(identityApi.updateUser, { params: { userId: user.id }, body: { name } });
      setError(undefined);
      message.success(t('profile.account.nameSaved'));
      onChanged();
    } catch (caught) {
      setError(describe(caught));
    } finally {
      setBusy(false);
    }
  };

  // The interface changes at once; the account keeps the choice for e-mails and other devices.
  const switchLanguage = async (language: Language) => {
    setLanguage(language);
    try {
      await call(identityApi.updateUser, { params: { userId: user.id }, body: { locale: language } });
      message.success(i18n.getFixedT(language)('profile.account.languageSaved'));
    } catch (caught) {
      message.warning(i18n.getFixedT(language)('profile.account.languageNotSaved', { reason: describe(caught) }));
    }
  };

  const dates = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long' });
  const current = (i18n.language === 'en' ? 'en' : 'ru') satisfies Language;
  return (
    <Card size="small" title={t('profile.account.title')} data-testid="account">
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={rename} requiredMark={false} size="small">
        <Form.Item label={t('profile.account.name')} style={{ marginBottom: 8 }}>
          {editable ? (
            <Space.Compact style={{ width: '100%' }}>
              <Form.Item
                name="name"
                noStyle
                rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
              >
                <Input aria-label={t('profile.account.name')} autoComplete="name" />
              </Form.Item>
              <Button htmlType="submit" loading={busy}>
                {t('profile.account.saveName')}
              </Button>
            </Space.Compact>
          ) : (
            <Typography.Text data-testid="profile-name">{user.name}</Typography.Text>
          )}
        </Form.Item>
      </Form>
      <Descriptions size="small" column={1} colon={false} styles={{ label: { width: 140 } }}>
        <Descriptions.Item label={t('profile.account.email')}>
          <Typography.Text data-testid="profile-email" copyable>
            {user.email}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('profile.account.role')}>
          {t(user.isAdmin ? 'profile.account.admin' : 'profile.account.member')}
        </Descriptions.Item>
        <Descriptions.Item label={t('profile.account.status')}>
          {t(`profile.statuses.${user.status}`)}
        </Descriptions.Item>
        <Descriptions.Item label={t('profile.account.since')}>
          {dates.format(new Date(user.createdAt))}
        </Descriptions.Item>
        {!own && (
          <Descriptions.Item label={t('profile.account.language')}>
            {LANGUAGES.find((language) => language.value === user.locale)?.label}
          </Descriptions.Item>
        )}
      </Descriptions>
      {own && (
        <div style={{ marginTop: 8 }}>
          <Typography.Text strong style={{ display: 'block', marginBottom: 4 }}>
            {t('profile.account.language')}
          </Typography.Text>
          <Segmented<Language>
            aria-label={t('profile.account.language')}
            value={current}
            onChange={switchLanguage}
            options={LANGUAGES}
          />
          <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginTop: 4, marginBottom: 0 }}>
            {t('profile.account.languageHint')}
          </Typography.Paragraph>
        </div>
      )}
    </Card>
  );
}
