import { App as AntApp, ConfigProvider, Layout, Menu, Modal, Select, Space, Table, Typography } from 'antd';
import enUS from 'antd/locale/en_US';
import ruRU from 'antd/locale/ru_RU';
import { StrictMode, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Route, Routes, useLocation, useNavigate } from 'react-router';
import { onAccountDeactivated, onTokens, sendUnsentSignOuts, storedTokens } from './api';
import { ReplicaProvider, useReplica } from './data/replica-context';
import { desktopBridge } from './desktop';
import { LANGUAGES, type Language, languageChosen, setLanguage } from './i18n';
import { OfflineBanner } from './offline-banner';
import { RegisterPage, SignInPage } from './pages/auth/auth-pages';
import { DirectoriesPage } from './pages/directories/directories-page';
import { BillingBanner, FinancePage } from './pages/finance/finance-page';
import { FormEditorPage } from './pages/forms/form-editor/form-editor-page';
import { FormsPage } from './pages/forms/forms-page';
import { MapPage } from './pages/gps/map-page';
import { GpsObjectsPage } from './pages/gps/objects-page';
import { HomePage } from './pages/home/home-page';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/profile/password-pages';
import { ProfilePage } from './pages/profile/profile-page';
import { SettingsPage } from './pages/settings/settings-page';
import { TaskPage } from './pages/tasks/task-page';
import { TasksPage } from './pages/tasks/tasks-page';
import { SHORTCUTS, useShortcut } from './shortcuts';
import { SignOutButton } from './sign-out';
import { themeOf } from './skin';
import { SkinProvider, useSkinState } from './skin-context';

/** The system asks for less motion: Ant Design's animations are switched off. */
const REDUCED_MOTION = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

/** Screens shown to someone who is not signed in. */
const SIGNED_OUT_PATHS = ['/sign-in', '/register', '/forgot-password', '/reset-password'];
/** The main menu, in the order of its Alt+digit shortcuts. */
const SECTIONS = ['/', '/forms', '/tasks', '/directories', '/profile', '/settings', '/finance', '/map'] as const;
const SECTION_LABEL: Record<(typeof SECTIONS)[number], string> = {
  '/': 'nav.home',
  '/forms': 'nav.forms',
  '/tasks': 'nav.tasks',
  '/directories': 'nav.directories',
  '/profile': 'nav.profile',
  '/settings': 'nav.settings',
  '/finance': 'nav.finance',
  '/map': 'nav.map',
};

function SectionShortcut({ index }: { index: number }) {
  const navigate = useNavigate();
  useShortcut(`Alt+${index + 1}`, () => navigate(SECTIONS[index] as string));
  return null;
}

function ShortcutsHelp() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  useShortcut('?', () => setOpen(true));
  return (
    <Modal open={open} title={t('shortcuts.title')} footer={null} onCancel={() => setOpen(false)}>
      <Table
        size="small"
        pagination={false}
        rowKey="keys"
        dataSource={SHORTCUTS}
        columns={[
          { title: t('shortcuts.keys'), dataIndex: 'keys', width: 160, render: (keys: string) => <kbd>{keys}</kbd> },
          { title: t('shortcuts.action'), dataIndex: 'action', render: (action: string) => t(action) },
        ]}
      />
    </Modal>
  );
}

function Shell() {
  const { t, i18n } = useTranslation();
  // Follows every switch (the header's or the profile's).
  const language = (i18n.language === 'en' ? 'en' : 'ru') as Language;
  const { me } = useReplica();
  // Settings are for administrators (the page also says so to anyone else).
  const sections = SECTIONS.filter(
    (key) =>
      (key !== '/settings' || me?.user.isAdmin) &&
      (key !== '/finance' || me?.modules.finance) &&
      (key !== '/map' || me?.modules.gps),
  );
  // On a new device the account's language applies until one is chosen here.
  const accountLocale = me?.user.locale;
  useEffect(() => {
    if ((accountLocale === 'ru' || accountLocale === 'en') && !languageChosen()) setLanguage(accountLocale);
  }, [accountLocale]);
  const location = useLocation();
  const navigate = useNavigate();
  // Links opened from outside (orbita://tasks/…) and the desktop menus navigate here.
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  useEffect(() => desktopBridge()?.onDeepLink((path) => navigateRef.current(path)), []);
  const signedIn = !SIGNED_OUT_PATHS.includes(location.pathname);
  // Signed out in another tab: this tab goes to the sign-in page too; signed in there, this one
  // leaves its sign-in page for the home page.
  const signedInRef = useRef(signedIn);
  signedInRef.current = signedIn;
  // A deactivated account is signed out here; the sign-in page says what became of its data.
  useEffect(() => onAccountDeactivated(() => navigateRef.current('/sign-in')), []);
  useEffect(
    () =>
      onTokens((tokens, source) => {
        if (source !== 'other-tab') return;
        if (!tokens && signedInRef.current) navigateRef.current('/sign-in');
        else if (tokens && !signedInRef.current) navigateRef.current('/');
      }),
    [],
  );
  // The organization's skin, or the one the user chose (kept on the device: it opens in it offline).
  const skins = useSkinState(signedIn ? me?.user.id : undefined);
  return (
    <ConfigProvider locale={language === 'en' ? enUS : ruRU} theme={themeOf(skins.skin?.tokens, !REDUCED_MOTION)}>
      <SkinProvider value={skins}>
        {/* Notices come up at the bottom of the window: at the top (antd's place for them) they covered
          the header's sections and the page's toolbar for seconds. */}
        <AntApp message={{ styles: { list: { top: 'auto', bottom: 24, height: 'auto' } } }}>
          <Layout style={{ minHeight: '100vh' }}>
            <Layout.Header style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between' }}>
              <Space size="large">
                <Typography.Text style={{ color: '#fff', fontSize: 18 }}>{t('app.name')}</Typography.Text>
                {signedIn && (
                  <Menu
                    theme="dark"
                    mode="horizontal"
                    data-testid="main-menu"
                    selectedKeys={[`/${location.pathname.split('/')[1]}`]}
                    onClick={({ key }) => navigate(key)}
                    // On the header's colour (a skin may set it), not the dark menu's own.
                    style={{ minWidth: 720, flex: 1, background: 'transparent' }}
                    items={sections.map((key) => ({ key, label: t(SECTION_LABEL[key]) }))}
                  />
                )}
              </Space>
              <Space>
                <Select
                  aria-label={t('app.language')}
                  value={language}
                  style={{ width: 120 }}
                  onChange={(next: Language) => setLanguage(next)}
                  options={LANGUAGES}
                />
                {signedIn && storedTokens() && <SignOutButton style={{ color: '#fff' }} />}
              </Space>
            </Layout.Header>
            {signedIn && <OfflineBanner />}
            {signedIn && <BillingBanner />}
            {signedIn && SECTIONS.map((key, index) => <SectionShortcut key={key} index={index} />)}
            <ShortcutsHelp />
            <Layout.Content>
              <Routes>
                <Route path="/sign-in" element={<SignInPage />} />
                <Route path="/register" element={<RegisterPage />} />
                <Route path="/forgot-password" element={<ForgotPasswordPage />} />
                <Route path="/reset-password" element={<ResetPasswordPage />} />
                <Route path="/forms" element={<FormsPage />} />
                <Route path="/forms/new" element={<FormEditorPage />} />
                <Route path="/forms/:formId/edit" element={<FormEditorPage />} />
                <Route path="/directories" element={<DirectoriesPage />} />
                <Route path="/directories/:directoryId" element={<DirectoriesPage />} />
                <Route path="/profile" element={<ProfilePage />} />
                <Route path="/finance" element={<FinancePage />} />
                <Route path="/map" element={<MapPage />} />
                <Route path="/map/objects" element={<GpsObjectsPage />} />
                <Route path="/settings/*" element={<SettingsPage />} />
                <Route path="/tasks" element={<TasksPage />} />
                <Route path="/tasks/:taskId" element={<TaskPage />} />
                <Route path="*" element={<HomePage />} />
              </Routes>
            </Layout.Content>
          </Layout>
        </AntApp>
      </SkinProvider>
    </ConfigProvider>
  );
}

// In a browser the interface's shell is kept by a service worker, so it opens without the network
// (the desktop app has its pages on disk already).
if (!desktopBridge() && 'serviceWorker' in navigator && location.protocol.startsWith('http')) {
  void navigator.serviceWorker.register('/sw.js').catch(() => undefined);
}

// Sign-outs made without the network reach the server once it can be reached.
void sendUnsentSignOuts();
window.addEventListener('online', () => void sendUnsentSignOuts());

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <BrowserRouter>
      <ReplicaProvider>
        <Shell />
      </ReplicaProvider>
    </BrowserRouter>
  </StrictMode>,
);
