import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export function ProfilePage() {
  const { t } = useTranslation();
  return (
    <div style={{ padding: 24 }}>
      <Typography.Title level={3}>{t('profile.title')}</Typography.Title>
    </div>
  );
}
