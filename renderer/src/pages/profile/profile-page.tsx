import { identityApi } from '@shared/api/identity';
import { profileApi } from '@shared/api/profile';
import { Alert, Button, Col, Row, Select, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useCall } from '../../use-api';
import { AccountCard } from './account-card';
import { AppearanceCard } from './appearance-card';
import { DeviceCard } from './device-card';
import { FieldDefinitionsCard } from './field-definitions';
import { HistoryCard } from './history-card';
import { SubstitutionCard } from './substitution-card';
import { ValuesCard } from './values-card';

/**
 * A user's profile: account and language, profile values with the history of `history-number`
 * fields, and for administrators the organization's field definitions. Opens the signed-in user's
 * own profile, or another member's with `?userId=`.
 */
export function ProfilePage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const me = useCall(identityApi.getCurrentUser, {});
  const requested = params.get('userId') ?? undefined;
  const own = !requested || requested === me.data?.user.id;
  const other = useCall(identityApi.getUser, requested && !own ? { params: { userId: requested } } : undefined);
  const userId = own ? me.data?.user.id : requested;
  const fields = useCall(profileApi.listProfileFields, {});
  const values = useCall(profileApi.getUserFieldValues, userId ? { params: { userId } } : undefined);
  const users = useCall(identityApi.listUsers, { query: { limit: 200 } });
  const [savedCount, setSavedCount] = useState(0);

  if (me.error) {
    return (
      <div style={{ padding: 16 }}>
        <Alert
          type="error"
          role="alert"
          title={`${t('profile.errors.load')}: ${me.error}`}
          action={<Button onClick={me.reload}>{t('profile.errors.retry')}</Button>}
        />
      </div>
    );
  }
  if (!me.data) return <Spin description={t('profile.loading')} style={{ display: 'block', padding: 48 }} />;
  const isAdmin = me.data.user.isAdmin;
  const subject = own ? me.data.user : other.data;
  const editable = own || isAdmin;
  const historyFields = (fields.data?.items ?? []).filter((field) => field.type === 'history-number');

  return (
    <div style={{ maxWidth: 1280, margin: '0 auto', padding: 16 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {own ? t('profile.title') : t('profile.titleOf', { name: subject?.name ?? '' })}
        </Typography.Title>
        <Space>
          {!own && <Link to="/profile">← {t('profile.back')}</Link>}
          <Typography.Text type="secondary">{t('profile.whose')}:</Typography.Text>
          <Select
            aria-label={t('profile.whose')}
            placeholder={t('profile.whose')}
            style={{ width: 260 }}
            size="small"
            showSearch={{ optionFilterProp: 'label' }}
            loading={users.loading}
            value={userId}
            onChange={(id: string) => setParams(id === me.data?.user.id ? {} : { userId: id })}
            options={(users.data?.items ?? []).map((user) => ({ value: user.id, label: user.name }))}
          />
        </Space>
      </Space>
      {other.error && !own ? (
        <Alert type="error" role="alert" title={`${t('profile.errors.load')}: ${other.error}`} />
      ) : !subject || !userId ? (
        <Spin description={t('profile.loading')} />
      ) : (
        <>
          <Row gutter={[12, 12]}>
            <Col xs={24} lg={8}>
              <AccountCard user={subject} own={own} editable={editable} onChanged={own ? me.reload : other.reload} />
              {own && (
                <div style={{ marginTop: 12 }}>
                  <DeviceCard />
                </div>
              )}
              {own && (
                <div style={{ marginTop: 12 }}>
                  <AppearanceCard />
                </div>
              )}
            </Col>
            <Col xs={24} lg={16}>
              <ValuesCard
                userId={userId}
                fields={fields.data?.items}
                values={values.data}
                loading={values.loading}
                error={fields.error ?? values.error}
                editable={editable}
                isAdmin={isAdmin}
                onSaved={() => {
                  values.reload();
                  setSavedCount((count) => count + 1);
                }}
              />
            </Col>
          </Row>
          {historyFields.length > 0 && (
            <Row gutter={[12, 12]} style={{ marginTop: 12 }}>
              {historyFields.map((field) => (
                <Col key={field.id} xs={24} xl={historyFields.length > 1 ? 12 : 24}>
                  {editable ? (
                    <HistoryCard userId={userId} field={field} refreshKey={savedCount} />
                  ) : (
                    <Alert type="info" showIcon title={`${field.name}: ${t('profile.history.forbidden')}`} />
                  )}
                </Col>
              ))}
            </Row>
          )}
          {editable && (
            <div style={{ marginTop: 12 }}>
              <SubstitutionCard userId={userId} users={users.data?.items ?? []} editable={editable} />
            </div>
          )}
          {isAdmin && (
            <div style={{ marginTop: 12 }}>
              <FieldDefinitionsCard
                fields={fields.data?.items ?? []}
                loading={fields.loading}
                onChanged={() => {
                  fields.reload();
                  values.reload();
                }}
              />
            </div>
          )}
        </>
      )}
    </div>
  );
}
