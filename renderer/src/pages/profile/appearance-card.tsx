import { skinsApi } from '@shared/api/skins';
import { Alert, Card, Select, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { useSkin } from '../../skin-context';
import { failureText } from '../../use-api';

/** The skin a user chooses for themselves (own profile): one of the organization's, or the organization's own. */
export function AppearanceCard() {
  const { t } = useTranslation();
  const message = useMessage();
  const { list, activeSkinId, refresh } = useSkin();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const organizationSkin = list?.items.find((skin) => skin.id === activeSkinId);
  const choose = async (skinId: string) => {
    setSaving(true);
    setError(undefined);
    try {
      await call(skinsApi.chooseSkin, { body: { skinId: skinId || null } });
      message.success(t('skins.profileSaved'));
      refresh();
    } catch (caught) {
      setError(failureText(caught, t));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Card size="small" title={t('skins.profileTitle')} data-testid="appearance-card">
      <Typography.Paragraph type="secondary">{t('skins.profileIntro')}</Typography.Paragraph>
      <Select
        aria-label={t('skins.profileChoice')}
        style={{ width: '100%' }}
        loading={!list || saving}
        disabled={!list}
        value={list ? (list.chosenSkinId ?? '') : undefined}
        onChange={(value: string) => void choose(value)}
        options={[
          {
            value: '',
            label: organizationSkin
              ? t('skins.profileOrganization', { name: organizationSkin.name })
              : t('skins.profileOrganizationNone'),
          },
          ...(list?.items ?? []).map((skin) => ({ value: skin.id, label: skin.name })),
        ]}
      />
      {error && <Alert type="error" role="alert" showIcon title={error} style={{ marginTop: 12 }} />}
    </Card>
  );
}
